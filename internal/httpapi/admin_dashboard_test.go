package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/audit"
	"hostgate/internal/billing"
	"hostgate/internal/buckets"
	"hostgate/internal/dashboard"
	"hostgate/internal/deliveries"
	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
	"hostgate/internal/webhooks"
)

type seriesPage struct {
	Bucket string            `json:"bucket"`
	Items  []dashboard.Point `json:"items"`
}

func series(t *testing.T, h *hubtest.Hub, tok, query string) seriesPage {
	t.Helper()
	var s seriesPage
	h.Client(t).As(tok).Do("GET", "/v1/admin/dashboard/series"+query, nil).Want(t, 200, "").JSON(t, &s)
	return s
}

// at returns the item of s starting at start, failing when there is none.
func (s seriesPage) at(t *testing.T, start time.Time) dashboard.Point {
	t.Helper()
	for _, p := range s.Items {
		if p.T.Equal(start) {
			return p
		}
	}
	t.Fatalf("no %s bucket at %v in %+v", s.Bucket, start, s.Items)
	return dashboard.Point{}
}

// chargeAt writes a charge of tokens to the ledger at at, as a charged
// call would have.
func chargeAt(t *testing.T, h *hubtest.Hub, user string, units billing.Units, at time.Time) {
	t.Helper()
	err := h.Store().Billing.Tx(t.Context(), func(tx billing.Tx) error {
		return tx.InsertEvents(t.Context(), []billing.Event{{ID: uuid.NewString(), UserID: user, Kind: billing.KindCharge,
			Units: -units, RuleCode: billing.RuleExecShell, CreatedAt: at}})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAdminDashboardSeries: the figures per bucket are the seeded ledger
// rows, recharges and fleet samples, each in the bucket its time falls in
// (an hour's first microsecond in that hour, its last in it too), zeros
// where nothing was; bad bounds are 400.
func TestAdminDashboardSeries(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		tok, _ := h.Admin(t, "viewer")
		u := h.Register(t).User.ID
		ctx := t.Context()
		cur := time.Now().UTC().Truncate(time.Hour)
		tick := time.Microsecond

		chargeAt(t, h, u, 1000, cur)                         // the current hour's first microsecond
		chargeAt(t, h, u, 500, cur.Add(-tick))               // the hour before's last
		chargeAt(t, h, u, 2000, cur.Add(-time.Hour))         // the hour before's first
		chargeAt(t, h, u, 250, cur.Add(-150*time.Minute))    // three hours ago
		chargeAt(t, h, u, 9000, cur.Add(-10*time.Hour-tick)) // out of a 6-hour window
		ledger := billing.NewLedger(h.Store().Billing)
		pay := func(fen int64, at time.Time) billing.Recharge {
			r, err := h.Billing.CreateRecharge(ctx, u, billing.CNY(fen))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := ledger.PayRecharge(ctx, billing.Payment{OrderNo: r.OrderNo, AmountFen: fen, Provider: "dummy", EventID: uuid.NewString(), At: at}); err != nil {
				t.Fatal(err)
			}
			return r
		}
		pay(1234, cur.Add(-2*time.Hour+time.Minute))
		r := pay(500, cur.Add(-2*time.Hour+2*time.Minute))
		if _, _, err := ledger.RefundRecharge(ctx, billing.Refund{RechargeID: r.ID, EventID: uuid.NewString(), Reason: "asked", At: cur.Add(-tick),
			Audit: audit.Actor{AdminID: "adm", Role: "finance"}.Entry(audit.ActionRechargeRefund, "recharge", r.ID)}); err != nil {
			t.Fatal(err)
		}
		for _, x := range []dashboard.Sample{
			{Minute: cur.Add(-3 * time.Hour), OnlineHosts: 7, WebhooksPending: 2, WebhooksDead: 1},
			{Minute: cur.Add(-3*time.Hour + 59*time.Minute), OnlineHosts: 3, WebhooksPending: 4, WebhooksDead: 0},
		} {
			x.SampledAt = x.Minute
			if err := h.Store().Dashboard.UpsertFleetSample(ctx, x); err != nil {
				t.Fatal(err)
			}
		}

		s := series(t, h, tok, "?bucket=hour&points=6")
		if s.Bucket != "hour" || len(s.Items) != 6 {
			t.Fatalf("series: bucket %q, %d items; want hour, 6", s.Bucket, len(s.Items))
		}
		for i := 1; i < len(s.Items); i++ {
			if !s.Items[i].T.Equal(s.Items[i-1].T.Add(time.Hour)) {
				t.Fatalf("items not consecutive hours, oldest first: %v then %v", s.Items[i-1].T, s.Items[i].T)
			}
		}
		checkPoint := func(what string, got, want dashboard.Point) {
			t.Helper()
			want.T = got.T
			if got != want {
				t.Errorf("%s: %+v, want %+v", what, got, want)
			}
		}
		now := s.at(t, cur)
		now.OnlineHosts, now.WebhooksPending, now.WebhooksDead = 0, 0, 0 // the hub's own samples
		checkPoint("this hour", now, dashboard.Point{Calls: 1, TokensCharged: 1})
		checkPoint("an hour ago", s.at(t, cur.Add(-time.Hour)), dashboard.Point{Calls: 2, TokensCharged: 2.5, RevenueCNY: -5})
		checkPoint("two hours ago", s.at(t, cur.Add(-2*time.Hour)), dashboard.Point{RevenueCNY: 17.34})
		checkPoint("three hours ago", s.at(t, cur.Add(-3*time.Hour)), dashboard.Point{Calls: 1, TokensCharged: 0.25,
			OnlineHosts: 7, WebhooksPending: 4})
		checkPoint("four hours ago: nothing", s.at(t, cur.Add(-4*time.Hour)), dashboard.Point{})

		day := cur.Truncate(24 * time.Hour)
		chargeAt(t, h, u, 100, day.Add(-24*time.Hour))      // yesterday's first microsecond
		chargeAt(t, h, u, 300, day.Add(-24*time.Hour-tick)) // the day before's last
		d := series(t, h, tok, "?bucket=day&points=3")
		if d.Bucket != "day" || len(d.Items) != 3 {
			t.Fatalf("day series: %+v", d)
		}
		if got := d.at(t, day.Add(-48*time.Hour)); got.Calls != 1 || got.TokensCharged != 0.3 {
			t.Errorf("the day before yesterday: %+v, want the one charge of 0.3", got)
		}
		if def := series(t, h, tok, ""); def.Bucket != "hour" || len(def.Items) != 24 {
			t.Errorf("default series: %s, %d items; want hour, 24", def.Bucket, len(def.Items))
		}
		if def := series(t, h, tok, "?bucket=day"); len(def.Items) != 30 {
			t.Errorf("default day series: %d items, want 30", len(def.Items))
		}
		series(t, h, tok, "?bucket=hour&points=168")
		series(t, h, tok, "?bucket=day&points=90")
		c := h.Client(t).As(tok)
		for _, q := range []string{"?bucket=hour&points=169", "?bucket=day&points=91", "?points=-1", "?bucket=week", "?points=x"} {
			c.Do("GET", "/v1/admin/dashboard/series"+q, nil).Want(t, 400, "invalid_query")
		}
	})
}

// TestAdminDashboardSummaryCounts: users by status and the webhook queue.
func TestAdminDashboardSummaryCounts(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		tok, _ := h.Admin(t, "viewer")
		op, _ := h.Admin(t, "operator")
		a, b := h.Register(t), h.Register(t)
		h.Register(t)
		h.Client(t).As(op).Do("POST", "/v1/admin/users/"+b.User.ID+"/suspend", nil).Want(t, 200, "")
		host, _, err := h.Hosts.Create(t.Context(), a.User.ID, "web", nil, false)
		if err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(time.Hour) // not due: the worker leaves it queued
		for _, st := range []deliveries.Status{deliveries.StatusPending, deliveries.StatusRetrying, deliveries.StatusDeadLetter} {
			id := uuid.NewString()
			err := h.Store().Deliveries.EnqueueDelivery(t.Context(), deliveries.Delivery{ID: id, HostID: host.ID, UserID: a.User.ID,
				EventType: webhooks.EventA, Format: webhooks.FormatA, Status: st, TargetURL: "https://hooks.example.com/x",
				Payload: []byte(`{}`), SealedSecrets: []byte("x"), NextAttemptAt: later, CreatedAt: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
		}
		var sum struct {
			UsersTotal      int   `json:"users_total"`
			UsersSuspended  int   `json:"users_suspended"`
			WebhooksPending int64 `json:"webhooks_pending"`
			WebhooksDead    int64 `json:"webhooks_dead"`
			OnlineHosts     int64 `json:"online_hosts"`
		}
		h.Client(t).As(tok).Do("GET", "/v1/admin/dashboard/summary", nil).Want(t, 200, "").JSON(t, &sum)
		if sum.UsersTotal != 3 || sum.UsersSuspended != 1 || sum.WebhooksPending != 2 || sum.WebhooksDead != 1 || sum.OnlineHosts != 0 {
			t.Errorf("summary = %+v, want 3 users (1 suspended), 2 webhooks pending, 1 dead, none online", sum)
		}
	})
}

// TestAdminUserPage: the user with its balance and counts, its billing
// events as the user sees them, its keys (revoked too, never a secret);
// an unknown user is 404 on each.
func TestAdminUserPage(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		tok, _ := h.Admin(t, "viewer")
		fin, _ := h.Admin(t, "finance")
		u := h.Register(t)
		c := h.Client(t)
		me := c.As(u.AccessToken)
		var host1, host2, key1 struct{ ID string }
		me.Do("POST", "/v1/user/hosts", map[string]string{"name": "a"}).Want(t, 200, "").JSON(t, &host1)
		me.Do("POST", "/v1/user/hosts", map[string]string{"name": "b"}).Want(t, 200, "").JSON(t, &host2)
		me.Do("DELETE", "/v1/user/hosts/"+host2.ID, nil)
		me.Do("POST", "/v1/user/api-keys", map[string]string{"name": "ci"}).Want(t, 200, "").JSON(t, &key1)
		var key2 struct{ ID string }
		me.Do("POST", "/v1/user/api-keys", map[string]string{"name": "old"}).Want(t, 200, "").JSON(t, &key2)
		me.Do("DELETE", "/v1/user/api-keys/"+key2.ID, nil)
		c.As(fin).Do("POST", "/v1/admin/users/"+u.User.ID+"/balance/adjust", map[string]any{"tokens": 12.5, "reason": "welcome"}).Want(t, 200, "")
		c.As(fin).Do("POST", "/v1/admin/users/"+u.User.ID+"/balance/adjust", map[string]any{"tokens": -2, "reason": "fix"}).Want(t, 200, "")

		var got struct {
			ID          string  `json:"id"`
			Email       string  `json:"email"`
			Status      string  `json:"status"`
			Balance     float64 `json:"balance"`
			HostCount   int     `json:"host_count"`
			APIKeyCount int     `json:"api_key_count"`
		}
		c.As(tok).Do("GET", "/v1/admin/users/"+u.User.ID, nil).Want(t, 200, "").JSON(t, &got)
		if got.ID != u.User.ID || got.Email != u.User.Email || got.Status != "active" || got.Balance != 10.5 || got.HostCount != 1 || got.APIKeyCount != 1 {
			t.Errorf("user = %+v, want balance 10.5, 1 host, 1 key", got)
		}

		// The billing events, as the user's own route shows them.
		var mine, theirs struct {
			Items []json.RawMessage `json:"items"`
			Total int               `json:"total"`
			Limit int               `json:"limit"`
		}
		me.Do("GET", "/v1/user/billing/events", nil).Want(t, 200, "").JSON(t, &mine)
		c.As(tok).Do("GET", "/v1/admin/users/"+u.User.ID+"/billing-events", nil).Want(t, 200, "").JSON(t, &theirs)
		if theirs.Total != 2 || len(theirs.Items) != 2 || len(mine.Items) != 2 {
			t.Fatalf("billing events: admin %+v, user %+v", theirs, mine)
		}
		for i := range mine.Items {
			if !bytes.Equal(mine.Items[i], theirs.Items[i]) {
				t.Errorf("event %d: admin sees %s, the user %s", i, theirs.Items[i], mine.Items[i])
			}
		}
		c.As(tok).Do("GET", "/v1/admin/users/"+u.User.ID+"/billing-events?limit=1&offset=1", nil).Want(t, 200, "").JSON(t, &theirs)
		if len(theirs.Items) != 1 || theirs.Limit != 1 || theirs.Total != 2 || !bytes.Equal(theirs.Items[0], mine.Items[1]) {
			t.Errorf("limit=1&offset=1: %+v", theirs)
		}
		c.As(tok).Do("GET", "/v1/admin/users/"+u.User.ID+"/billing-events?limit=201", nil).Want(t, 400, "invalid_query")

		resp := c.As(tok).Do("GET", "/v1/admin/users/"+u.User.ID+"/api-keys", nil).Want(t, 200, "")
		var keys struct {
			Items []map[string]any `json:"items"`
		}
		resp.JSON(t, &keys)
		if len(keys.Items) != 2 {
			t.Fatalf("api keys: %+v, want both", keys.Items)
		}
		for _, k := range keys.Items {
			for field := range k {
				if strings.Contains(field, "secret") || strings.Contains(field, "hash") {
					t.Errorf("api key answer has %s", field)
				}
			}
			_, revoked := k["revoked_at"]
			if revoked != (k["id"] == key2.ID) || k["prefix"] != "ak_"+k["id"].(string) {
				t.Errorf("api key %v: want revoked_at on the deleted one only, and its prefix", k)
			}
			if _, ok := k["last_used_at"]; !ok {
				t.Errorf("api key %v lacks last_used_at", k)
			}
		}

		unknown := "00000000-0000-4000-8000-0000000000ff"
		for _, p := range []string{"", "/billing-events", "/api-keys"} {
			c.As(tok).Do("GET", "/v1/admin/users/"+unknown+p, nil).Want(t, 404, "not_found")
		}
	})
}

// TestAdminHostPageAndVersions: a host's owner and its connects and
// disconnects of the last hour; hosts by agent version, and host_count on
// the published versions.
func TestAdminHostPageAndVersions(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		tok, _ := h.Admin(t, "viewer")
		op, _ := h.Admin(t, "operator")
		u := h.Register(t)
		c := h.Client(t)
		id := h.ConnectAgent(t, u.User.ID, nil)
		type hostPage struct {
			Owner struct{ ID, Email string } `json:"owner"`
			Flaps struct {
				Connects    int `json:"connects"`
				Disconnects int `json:"disconnects"`
			} `json:"flaps_1h"`
			Host struct {
				InstalledVersion string `json:"installed_version"`
			} `json:"host"`
		}
		var p hostPage
		eventually.True(t, 20*time.Second, "the connect event counted", func() bool {
			c.As(tok).Do("GET", "/v1/admin/hosts/"+id, nil).Want(t, 200, "").JSON(t, &p)
			return p.Flaps.Connects == 1
		})
		if p.Owner.ID != u.User.ID || p.Owner.Email != u.User.Email || p.Flaps.Disconnects != 0 {
			t.Errorf("host page: %+v", p)
		}
		c.As(tok).Do("GET", "/v1/admin/hosts/00000000-0000-4000-8000-0000000000ff", nil).Want(t, 404, "not_found")

		// A pending host reports no version yet.
		if _, _, err := h.Hosts.Create(t.Context(), u.User.ID, "later", nil, false); err != nil {
			t.Fatal(err)
		}
		var vs struct {
			Items []struct {
				Version string `json:"version"`
				Hosts   int    `json:"hosts"`
				Online  int    `json:"online"`
			} `json:"items"`
		}
		c.As(tok).Do("GET", "/v1/admin/dashboard/agent-versions", nil).Want(t, 200, "").JSON(t, &vs)
		want := fmt.Sprintf("[{ 1 0} {%s 1 1}]", p.Host.InstalledVersion) // one host each: by version
		if p.Host.InstalledVersion == "" || fmt.Sprint(vs.Items) != want {
			t.Errorf("agent versions = %v, want %s", vs.Items, want)
		}

		c.As(op).Do("POST", "/v1/admin/gateway-versions", map[string]any{"version": "9.9.9", "exe_url": "https://dl.example.com/a",
			"exe_sha256": strings.Repeat("ab", 32), "exe_size_bytes": 1}).Want(t, 200, "")
		if err := h.Store().Hosts.RecordHandshake(t.Context(), id, "192.0.2.1", "linux", "9.9.9", time.Now()); err != nil {
			t.Fatal(err)
		}
		var list struct {
			Items []struct {
				Version   string `json:"version"`
				HostCount int    `json:"host_count"`
			} `json:"items"`
		}
		c.As(tok).Do("GET", "/v1/admin/gateway-versions", nil).Want(t, 200, "").JSON(t, &list)
		if len(list.Items) != 1 || list.Items[0].Version != "9.9.9" || list.Items[0].HostCount != 1 {
			t.Errorf("gateway versions = %+v, want 9.9.9 with 1 host", list.Items)
		}
	})
}

// TestAdminAuditTimeFilters: since and until bound the entries in SQL; a
// bad time is 400.
func TestAdminAuditTimeFilters(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		op, _ := h.Admin(t, "operator")
		u := h.Register(t)
		before := time.Now().UTC().Add(-time.Minute)
		h.Client(t).As(op).Do("POST", "/v1/admin/users/"+u.User.ID+"/suspend", nil).Want(t, 200, "")
		after := time.Now().UTC().Add(time.Minute)
		f := func(ts time.Time) string { return ts.Format(time.RFC3339) }
		for q, want := range map[string]int{
			"since=" + f(before):                                     1,
			"since=" + f(after):                                      0,
			"until=" + f(before):                                     0,
			"since=" + f(before) + "&until=" + f(after):              1,
			"until=" + strings.Replace(f(after), "Z", "%2B00:00", 1): 1,
		} {
			if got := auditRows(t, h, op, "?action=user.suspend&"+q).Total; got != want {
				t.Errorf("audit %s: %d entries, want %d", q, got, want)
			}
		}
		for _, q := range []string{"?since=yesterday", "?until=2026-13-01T00:00:00Z", "?since=2026-01-01"} {
			h.Client(t).As(op).Do("GET", "/v1/admin/audit-logs"+q, nil).Want(t, 400, "invalid_query")
		}
	})
}

// TestFleetSamplerOnePerMinuteAcrossInstances: two instances sampling in
// the same minute leave one sample, and both count the agents connected
// to either (coordination's presence).
func TestFleetSamplerOnePerMinuteAcrossInstances(t *testing.T) {
	h := hubtest.Start(t, hubtest.Scaled)
	h2 := h.StartSibling(t)
	u := h.Register(t)
	h.ConnectAgent(t, u.User.ID, nil)
	eventually.True(t, 20*time.Second, "the sibling sees the agent", func() bool {
		n, err := h2.Dispatch.CountOnline(t.Context())
		return err == nil && n == 1
	})
	// Two days ago: before the hubs' own samples, inside what they keep.
	minute := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Minute)
	for i, inst := range []*hubtest.Hub{h, h2} {
		s := dashboard.NewService(inst.Store().Dashboard, inst.Billing, inst.Dispatch, inst.Store().Deliveries)
		s.SetClock(func() time.Time { return minute.Add(time.Duration(10+30*i) * time.Second) })
		if err := s.Sample(t.Context()); err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
	}
	got, err := h2.Store().Dashboard.FleetBuckets(t.Context(), buckets.Hour, minute, minute.Add(time.Minute))
	if err != nil || len(got) != 1 || got[0].OnlineHosts != 1 {
		t.Errorf("the minute's sample: %+v (%v), want one with the agent online", got, err)
	}
	n, err := h.Store().Dashboard.PruneFleetSamples(t.Context(), minute.Add(time.Minute))
	if err != nil || n != 1 {
		t.Errorf("samples of the minute: %d (%v), want 1", n, err)
	}
}
