package httpapi_test

import (
	"encoding/json"
	"runtime"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
)

// TestUserHostUpgrade: GET /v1/user/hosts/{id} carries the host's latest
// agent upgrade once there is one, and no upgrade field before.
func TestUserHostUpgrade(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		c := h.Client(t).As(u.AccessToken)
		hostID := h.ConnectAgent(t, u.User.ID, nil)

		var before map[string]json.RawMessage
		c.Do("GET", "/v1/user/hosts/"+hostID, nil).Want(t, 200, "").JSON(t, &before)
		if _, ok := before["upgrade"]; ok || before["host"] == nil || string(before["online"]) != "true" {
			t.Fatalf("before any upgrade: %v", before)
		}
		op, _ := h.Admin(t, "operator")
		ver := publish(t, h, op, "http://127.0.0.1:1/a.exe", []byte("x"), "", nil)
		h.Client(t).As(op).Do("POST", "/v1/admin/hosts/"+hostID+"/push-upgrade", map[string]string{"version": ver}).Want(t, 200, "")

		var after struct {
			Upgrade *upgradeView `json:"upgrade"`
		}
		c.Do("GET", "/v1/user/hosts/"+hostID, nil).Want(t, 200, "").JSON(t, &after)
		if after.Upgrade == nil || after.Upgrade.Version != ver {
			t.Fatalf("upgrade after a push = %+v, want version %s", after.Upgrade, ver)
		}
	})
}

// TestUserHostMetrics: the stored samples of the user's own host, newest
// first, limit bounded to 1..1440.
func TestUserHostMetrics(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		c := h.Client(t).As(u.AccessToken)
		host, _, err := h.Hosts.Create(t.Context(), u.User.ID, "m", nil, false)
		if err != nil {
			t.Fatal(err)
		}
		var empty struct{ Items []json.RawMessage }
		c.Do("GET", "/v1/user/hosts/"+host.ID+"/metrics", nil).Want(t, 200, "").JSON(t, &empty)
		if empty.Items == nil || len(empty.Items) != 0 {
			t.Fatalf("no samples yet: items %v, want []", empty.Items)
		}
		for _, pct := range []float64{10, 20, 30} {
			h.Hosts.RecordMetrics(host.ID, agentproto.Metrics{CPUPct: pct})
			if err := h.Hosts.FlushMetrics(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		var got struct {
			Items []struct {
				CPUPct float64 `json:"cpu_pct"`
			}
		}
		c.Do("GET", "/v1/user/hosts/"+host.ID+"/metrics?limit=2", nil).Want(t, 200, "").JSON(t, &got)
		if len(got.Items) != 2 || got.Items[0].CPUPct != 30 || got.Items[1].CPUPct != 20 {
			t.Fatalf("limit=2: %+v, want cpu 30 then 20", got.Items)
		}
		c.Do("GET", "/v1/user/hosts/"+host.ID+"/metrics?limit=0", nil).Want(t, 400, "")
		c.Do("GET", "/v1/user/hosts/"+host.ID+"/metrics?limit=1441", nil).Want(t, 400, "")
	})
}

// TestUserSystemInfo: the console's system/info is charged like the client
// API's, by the same rule, with no API key on the event; refused before
// the charge when the agent is away.
func TestUserSystemInfo(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		c := h.Client(t).As(u.AccessToken)
		hostID := h.ConnectAgent(t, u.User.ID, nil)
		path := "/v1/user/hosts/" + hostID + "/system/info"

		c.Do("POST", path, nil).Want(t, 402, "insufficient_balance")
		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+u.User.ID+"/balance/adjust",
			map[string]any{"tokens": 5, "reason": "console"}).Want(t, 200, "")

		var info agentproto.SystemInfo
		c.Do("POST", path, map[string]any{}).Want(t, 200, "").JSON(t, &info)
		if info.OS != runtime.GOOS || info.Hostname == "" {
			t.Errorf("system info %+v", info)
		}
		var events struct {
			Items []map[string]any
		}
		c.Do("GET", "/v1/user/billing/events?limit=1", nil).Want(t, 200, "").JSON(t, &events)
		if len(events.Items) != 1 {
			t.Fatalf("events %v", events.Items)
		}
		e := events.Items[0]
		if e["kind"] != "charge" || e["rule_code"] != "control.system_info.per_call" || e["host_id"] != hostID || e["tokens"] != -0.5 {
			t.Errorf("charge event %v", e)
		}
		if _, ok := e["api_key_id"]; ok {
			t.Errorf("charge event carries an api_key_id: %v", e)
		}

		offline, _, err := h.Hosts.Create(t.Context(), u.User.ID, "away", nil, false)
		if err != nil {
			t.Fatal(err)
		}
		c.Do("POST", "/v1/user/hosts/"+offline.ID+"/system/info", nil).Want(t, 409, "host_offline")
		var bal struct{ Tokens float64 }
		c.Do("GET", "/v1/user/billing/balance", nil).Want(t, 200, "").JSON(t, &bal)
		if bal.Tokens != 4.5 {
			t.Errorf("balance %v, want 4.5 (one charge; the refused call free)", bal.Tokens)
		}
	})
}

// TestConsoleRoutesTenantBoundary: another user's host is not_found on
// every route the console added, and nothing is charged or sent.
func TestConsoleRoutesTenantBoundary(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		owner := h.Register(t)
		hostID := h.ConnectAgent(t, owner.User.ID, nil)
		other := h.Register(t)
		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+other.User.ID+"/balance/adjust",
			map[string]any{"tokens": 5, "reason": "tenant"}).Want(t, 200, "")
		c := h.Client(t).As(other.AccessToken)
		c.Do("GET", "/v1/user/hosts/"+hostID, nil).Want(t, 404, "not_found")
		c.Do("GET", "/v1/user/hosts/"+hostID+"/metrics", nil).Want(t, 404, "not_found")
		c.Do("POST", "/v1/user/hosts/"+hostID+"/system/info", nil).Want(t, 404, "not_found")
		var bal struct{ Tokens float64 }
		c.Do("GET", "/v1/user/billing/balance", nil).Want(t, 200, "").JSON(t, &bal)
		if bal.Tokens != 5 {
			t.Errorf("balance %v after refused calls, want 5", bal.Tokens)
		}
	})
}
