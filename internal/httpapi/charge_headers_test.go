package httpapi_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"hostgate/internal/hubtest"
)

// wantCharge fails unless r names charged tokens and the balance after
// (balance "" wants no balance header; charged "" wants neither header).
func wantCharge(t *testing.T, r *hubtest.Response, charged, balance string) {
	t.Helper()
	_, hasCharged := r.Header[http.CanonicalHeaderKey("X-Hostgate-Charged")]
	_, hasBalance := r.Header[http.CanonicalHeaderKey("X-Hostgate-Balance")]
	gotC, gotB := r.Header.Get("X-Hostgate-Charged"), r.Header.Get("X-Hostgate-Balance")
	switch {
	case charged == "" && (hasCharged || hasBalance):
		t.Errorf("%d answer names a charge (%q, balance %q), want none", r.Status, gotC, gotB)
	case charged != "" && (gotC != charged || gotB != balance || hasBalance != (balance != "")):
		t.Errorf("%d answer: X-Hostgate-Charged %q, X-Hostgate-Balance %q (present %v); want %q, %q",
			r.Status, gotC, gotB, hasBalance, charged, balance)
	}
}

// TestChargeHeaders: a charged call's answer names the tokens it took and
// the balance after, also when the command fails after the charge; a 402
// took nothing and names the balance; a call refused before the charge,
// or on a free route, names nothing; in free mode the charge is 0 and no
// balance is read.
func TestChargeHeaders(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		key := apiKey(t, h, u.AccessToken)
		c := h.Client(t).As(key)
		host := h.ConnectAgent(t, u.User.ID, nil)
		base := "/v1/api/hosts/" + host

		// Nothing yet: 402 takes nothing and names the balance that fell short.
		wantCharge(t, c.Do("POST", base+"/files/dir", map[string]any{"controls": 1, "path": filepath.Join(t.TempDir(), "a")}).
			Want(t, 402, "insufficient_balance"), "0", "0")

		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+u.User.ID+"/balance/adjust",
			map[string]any{"tokens": 10, "reason": "charge headers"}).Want(t, 200, "")

		wantCharge(t, c.Do("POST", base+"/files/dir", map[string]any{"controls": 1, "path": filepath.Join(t.TempDir(), "a")}).
			Want(t, 200, ""), "1", "9")
		// The agent fails after the charge: not refunded, and said so.
		wantCharge(t, c.Do("POST", base+"/files/text", map[string]any{"controls": 32, "path": filepath.Join(t.TempDir(), "missing")}).
			Want(t, 422, "target_not_found"), "0.5", "8.5")
		wantCharge(t, c.Do("POST", base+"/system/metrics", nil).Want(t, 200, ""), "0.1", "8.4")
		// The console's system/info is charged the same way.
		wantCharge(t, h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/hosts/"+host+"/system/info", nil).
			Want(t, 200, ""), "0.5", "7.9")
		// A price of zero (host queries): charged 0, no balance read.
		wantCharge(t, c.Do("GET", "/v1/api/hosts", nil).Want(t, 200, ""), "0", "")
		// Refused before the charge, and free routes: nothing named.
		wantCharge(t, c.Do("GET", "/v1/api/hosts/00000000-0000-4000-8000-000000000000", nil).Want(t, 404, "not_found"), "", "")
		wantCharge(t, c.Do("POST", base+"/files/dir", map[string]any{"controls": 3, "path": "x"}).Want(t, 400, ""), "", "")
		wantCharge(t, c.Do("POST", "/v1/api/hosts", map[string]any{"name": "free-route"}).Want(t, 201, ""), "", "")
		wantCharge(t, c.Do("POST", base+"/install-token", nil).Want(t, 200, ""), "", "")

		var bal struct{ Tokens float64 }
		h.Client(t).As(u.AccessToken).Do("GET", "/v1/user/billing/balance", nil).Want(t, 200, "").JSON(t, &bal)
		if bal.Tokens != 7.9 {
			t.Errorf("balance %v, want 7.9 as the last header said", bal.Tokens)
		}

		owner, _ := h.Admin(t, "owner")
		setMode(t, h, owner, stepUpToken(t, h, owner), "free").Want(t, 200, "")
		wantCharge(t, c.Do("POST", base+"/system/metrics", nil).Want(t, 200, ""), "0", "")
	})
}
