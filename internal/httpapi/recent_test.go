package httpapi_test

import (
	"testing"
	"time"

	"hostgate/internal/hubtest"
	"hostgate/internal/recent"
)

// TestChangesReachCallsOnOtherInstances: API-key checks and command
// targets are kept for a moment on each instance (package recent). A key
// deleted, a user suspended, a host banned, unbanned or deleted through
// one instance is refused through another one well before the kept fact
// would have expired on its own.
func TestChangesReachCallsOnOtherInstances(t *testing.T) {
	a := hubtest.Start(t, hubtest.Scaled)
	b := a.StartSibling(t)

	u := a.Register(t)
	key := apiKey(t, a, u.AccessToken)
	hs, _ := createWithCreds(t, a, key)
	ping := "/v1/api/hosts/" + hs.ID + "/ping"
	cb := b.Client(t)
	// soon waits for b to answer a call with status and code, at most half
	// the time a fact may be kept: only the forget can make it that fast.
	soon := func(k, method, path string, status int, code string) {
		t.Helper()
		deadline := time.Now().Add(recent.TTL / 2)
		for {
			r := cb.As(k).Do(method, path, nil)
			if r.Status == status && r.Code() == code {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s %s through b: %d %s, want %d %s", method, path, r.Status, r.Code(), status, code)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	op, _ := a.Admin(t, "operator")
	ca := a.Client(t)

	// Keep the key and the host on b, then ban and unban through a.
	cb.As(key).Do("POST", ping, nil).Want(t, 409, "host_offline")
	ca.As(op).Do("POST", "/v1/admin/hosts/"+hs.ID+"/ban", nil).Want(t, 200, "")
	soon(key, "POST", ping, 403, "host_banned")
	ca.As(op).Do("POST", "/v1/admin/hosts/"+hs.ID+"/unban", nil).Want(t, 200, "")
	soon(key, "POST", ping, 409, "host_offline")

	// Another user's key never reaches the host, kept or not.
	stranger := apiKey(t, a, a.Register(t).AccessToken)
	cb.As(stranger).Do("POST", ping, nil).Want(t, 404, "not_found")

	// The owner deletes the host through a.
	ca.As(key).Do("DELETE", "/v1/api/hosts/"+hs.ID, nil).Want(t, 204, "")
	soon(key, "POST", ping, 404, "not_found")

	// The key is deleted through a.
	var keys struct{ Items []struct{ ID string } }
	ca.As(u.AccessToken).Do("GET", "/v1/user/api-keys", nil).Want(t, 200, "").JSON(t, &keys)
	cb.As(key).Do("GET", "/v1/api/hosts", nil).Want(t, 200, "")
	ca.As(u.AccessToken).Do("DELETE", "/v1/user/api-keys/"+keys.Items[0].ID, nil).Want(t, 200, "")
	soon(key, "GET", "/v1/api/hosts", 401, "invalid_token")

	// The user is suspended through a: their other key stops on b.
	key2 := apiKey(t, a, u.AccessToken)
	cb.As(key2).Do("GET", "/v1/api/hosts", nil).Want(t, 200, "")
	ca.As(op).Do("POST", "/v1/admin/users/"+u.User.ID+"/suspend", nil).Want(t, 200, "")
	soon(key2, "GET", "/v1/api/hosts", 401, "invalid_token")
}
