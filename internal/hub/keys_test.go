package hub_test

import (
	"crypto/rand"
	"encoding/base64"
	"maps"
	"testing"
	"time"

	"hostgate/internal/deliveries"
	"hostgate/internal/hub"
	"hostgate/internal/hubtest"
	"hostgate/internal/keyring"
	"hostgate/internal/webhooks"
)

func newKey(t *testing.T) ([]byte, string) {
	t.Helper()
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k, base64.StdEncoding.EncodeToString(k)
}

// TestKeyRotation follows docs/operations-guide.md §6 through both
// rotations at once: old tokens and sealed secrets stay usable throughout,
// `keys reseal` moves every sealed value onto the new key, and once the old
// keys are dropped its tokens are refused and nothing sealed is lost.
func TestKeyRotation(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		oldSign, oldSignB64 := newKey(t)
		oldSeal, oldSealB64 := newKey(t)
		newSign, newSignB64 := newKey(t)
		newSeal, newSealB64 := newKey(t)
		h := hubtest.Start(t, mode,
			hubtest.WithEnv("HOSTGATE_SIGNING_KEY", oldSignB64), hubtest.WithEnv("HOSTGATE_SEALING_KEY", oldSealB64))

		// Under the old keys: a user, their host (sealed L1 secret) and a
		// queued webhook delivery (sealed secrets, delivery id as aad).
		u := h.Register(t)
		c := h.Client(t).As(u.AccessToken)
		var hs struct{ ID, UserID string }
		c.Do("POST", "/v1/user/hosts", map[string]any{"name": "rot"}).Want(t, 200, "").JSON(t, &hs)
		c.Do("POST", "/v1/user/hosts/"+hs.ID+"/install-token", nil).Want(t, 200, "")
		old, err := keyring.New(oldSign, oldSeal)
		if err != nil {
			t.Fatal(err)
		}
		const deliveryID = "delivery-rotation-1"
		now := time.Now()
		err = h.Store().Deliveries.EnqueueDelivery(t.Context(), deliveries.Delivery{ID: deliveryID, HostID: hs.ID, UserID: u.User.ID,
			EventType: webhooks.EventA, Format: webhooks.FormatA, Status: deliveries.StatusSkippedNoURL,
			Payload: []byte(`{}`), SealedSecrets: old.Seal([]byte(`{"New":"n","Signing":"s"}`), []byte(deliveryID)),
			NextAttemptAt: now, CreatedAt: now})
		if err != nil {
			t.Fatalf("EnqueueDelivery: %v", err)
		}

		restart := func(env map[string]string) {
			t.Helper()
			for _, k := range []string{"HOSTGATE_SIGNING_KEY", "HOSTGATE_SEALING_KEY", "HOSTGATE_SIGNING_KEYS_ACCEPTED", "HOSTGATE_SEALING_KEYS_ACCEPTED"} {
				delete(h.Env, k)
			}
			for k, v := range env {
				h.Env[k] = v
			}
			h = h.Restart(t)
			c = h.Client(t).As(u.AccessToken)
		}

		// Phase 1: the new keys accepted, the old ones current.
		restart(map[string]string{"HOSTGATE_SIGNING_KEY": oldSignB64, "HOSTGATE_SEALING_KEY": oldSealB64,
			"HOSTGATE_SIGNING_KEYS_ACCEPTED": newSignB64, "HOSTGATE_SEALING_KEYS_ACCEPTED": newSealB64})
		c.Do("GET", "/v1/user/me", nil).Want(t, 200, "")

		// Phase 2: the new keys current, the old ones accepted.
		restart(map[string]string{"HOSTGATE_SIGNING_KEY": newSignB64, "HOSTGATE_SEALING_KEY": newSealB64,
			"HOSTGATE_SIGNING_KEYS_ACCEPTED": oldSignB64, "HOSTGATE_SEALING_KEYS_ACCEPTED": oldSealB64})
		c.Do("GET", "/v1/user/me", nil).Want(t, 200, "")
		c.Do("POST", "/v1/user/hosts/"+hs.ID+"/install-token", nil).Want(t, 200, "")
		fresh := h.Register(t)

		// Phase 3: reseal, beside the serving hub.
		counts, err := hub.Reseal(t.Context(), h.Config, hubtest.Logger(t))
		if err != nil {
			t.Fatalf("Reseal: %v", err)
		}
		if c := counts[keyring.SealedHostSecret]; c.Resealed+c.Current != 1 || c.Unopenable != 0 {
			t.Errorf("host secrets: %+v, want the one host resealed or current", c)
		}
		if c := counts[keyring.SealedDeliverySecrets]; c.Resealed != 1 || c.Unopenable != 0 {
			t.Errorf("delivery secrets: %+v, want the one delivery resealed", c)
		}
		again, err := hub.Reseal(t.Context(), h.Config, hubtest.Logger(t))
		if err != nil {
			t.Fatalf("Reseal again: %v", err)
		}
		for kind, c := range again {
			if c.Resealed != 0 || c.Unopenable != 0 {
				t.Errorf("second reseal of %s: %+v, want all current", kind, c)
			}
		}

		// Phase 4: the old keys dropped.
		restart(map[string]string{"HOSTGATE_SIGNING_KEY": newSignB64, "HOSTGATE_SEALING_KEY": newSealB64})
		c.Do("GET", "/v1/user/me", nil).Want(t, 401, "invalid_token")
		h.Client(t).As(fresh.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 200, "")
		h.Client(t).As(fresh.AccessToken).Do("GET", "/v1/user/hosts/"+hs.ID, nil).Want(t, 404, "not_found")
		newOnly, err := keyring.New(newSign, newSeal)
		if err != nil {
			t.Fatal(err)
		}
		// The host's secret opens: install credentials still issue. The
		// user's token is refused now, so sign them in again.
		var in hubtest.Auth
		h.Client(t).Do("POST", "/v1/public/auth/login", map[string]string{"email": u.User.Email, "password": hubtest.Password}).
			Want(t, 200, "").JSON(t, &in)
		h.Client(t).As(in.AccessToken).Do("POST", "/v1/user/hosts/"+hs.ID+"/install-token", nil).Want(t, 200, "")
		vals, err := h.Store().Reseal.SealedValues(t.Context(), keyring.SealedDeliverySecrets, "", 10)
		if err != nil || len(vals) != 1 {
			t.Fatalf("SealedValues: %d, %v, want the one delivery", len(vals), err)
		}
		if _, err := newOnly.Open(vals[0].Value, []byte(deliveryID)); err != nil {
			t.Errorf("delivery secrets under the new key alone: %v", err)
		}
	})
}

// TestKeyRotationMixedFleet: during step 2's rolling restart, an instance
// still in step 1 and one already in step 2 share one database; each
// honours the other's tokens and opens the other's sealed secrets.
func TestKeyRotationMixedFleet(t *testing.T) {
	_, oldSign := newKey(t)
	_, oldSeal := newKey(t)
	_, newSign := newKey(t)
	_, newSeal := newKey(t)
	step1 := hubtest.Start(t, hubtest.Scaled,
		hubtest.WithEnv("HOSTGATE_SIGNING_KEY", oldSign), hubtest.WithEnv("HOSTGATE_SEALING_KEY", oldSeal),
		hubtest.WithEnv("HOSTGATE_SIGNING_KEYS_ACCEPTED", newSign), hubtest.WithEnv("HOSTGATE_SEALING_KEYS_ACCEPTED", newSeal))
	env := maps.Clone(step1.Env)
	env["HOSTGATE_ADDR"], env["HOSTGATE_DATA_DIR"] = "127.0.0.1:0", t.TempDir()
	delete(env, "HOSTGATE_PUBLIC_URL")
	env["HOSTGATE_SIGNING_KEY"], env["HOSTGATE_SIGNING_KEYS_ACCEPTED"] = newSign, oldSign
	env["HOSTGATE_SEALING_KEY"], env["HOSTGATE_SEALING_KEYS_ACCEPTED"] = newSeal, oldSeal
	step2 := hubtest.StartEnv(t, env)

	hubs := []*hubtest.Hub{step1, step2}
	for i, maker := range hubs {
		u := maker.Register(t)
		var hs struct{ ID string }
		maker.Client(t).As(u.AccessToken).Do("POST", "/v1/user/hosts", map[string]any{"name": "mixed"}).Want(t, 200, "").JSON(t, &hs)
		for j, other := range hubs {
			c := other.Client(t).As(u.AccessToken)
			if r := c.Do("GET", "/v1/user/me", nil); r.Status != 200 {
				t.Errorf("token of step %d on step %d: %d %s", i+1, j+1, r.Status, r.Body)
			}
			if r := c.Do("POST", "/v1/user/hosts/"+hs.ID+"/install-token", nil); r.Status != 200 {
				t.Errorf("host sealed by step %d, install-token on step %d: %d %s", i+1, j+1, r.Status, r.Body)
			}
		}
	}
}
