package httpapi_test

import (
	"testing"
	"time"

	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
)

// TestBillingModeFromEnvironment: HOSTGATE_BILLING_MODE=free makes a new
// installation free, so client commands cost nothing; a restart with
// charging keeps the store's free (changing it takes an owner's step-up).
func TestBillingModeFromEnvironment(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode, hubtest.WithEnv("HOSTGATE_BILLING_MODE", "free"))
		u := h.Register(t)
		key := apiKey(t, h, u.AccessToken)
		id := h.ConnectAgent(t, u.User.ID, nil)
		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+u.User.ID+"/balance/adjust",
			map[string]any{"tokens": 10, "reason": "mode test"}).Want(t, 200, "")

		shell := map[string]any{"controls": 8192, "path": "/bin/sh", "data": map[string]any{"args": "-c true", "timeout_s": 10}}
		checkFree := func(when string) {
			t.Helper()
			var m struct{ Mode string }
			h.Client(t).As(fin).Do("GET", "/v1/admin/billing/mode", nil).Want(t, 200, "").JSON(t, &m)
			if m.Mode != "free" {
				t.Fatalf("%s: mode %q, want free", when, m.Mode)
			}
			h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+id+"/process/shell", shell).Want(t, 200, "")
			if b := balanceOf(t, h, u.AccessToken); b != 10 {
				t.Errorf("%s: balance %v after a shell command, want 10 (unchanged)", when, b)
			}
			var events struct{ Total int }
			h.Client(t).As(u.AccessToken).Do("GET", "/v1/user/billing/events", nil).Want(t, 200, "").JSON(t, &events)
			if events.Total != 1 {
				t.Errorf("%s: %d billing events, want 1 (the adjustment; no debit)", when, events.Total)
			}
		}
		checkFree("first start")

		h.Env["HOSTGATE_BILLING_MODE"] = "charging"
		h = h.Restart(t)
		eventually.Error(t, 20*time.Second, "the agent reconnected", connected(t, h, id))
		fin, _ = h.Admin(t, "finance")
		checkFree("restart with charging")
	})
}
