//go:build linux

package e2e

import (
	"testing"
	"time"

	"hostgate/internal/battery"
	"hostgate/internal/eventually"
	"hostgate/internal/redistest"
)

// TestPostgresRestartUnderLoad (battery T60): a hub on a private
// PostgreSQL cluster carries charged calls from 8 workers while the cluster
// is restarted (`pg_ctl restart -m fast`) and then stopped and started
// again. Every request is answered within its deadline, with a 2xx or a
// 5xx; /readyz answers 503 naming the store while it is down and 200 soon
// after it is back, the hub never restarted; calls succeed again; and the
// ledger holds every answered charge once (checkLedger).
func TestPostgresRestartUnderLoad(t *testing.T) {
	t.Parallel()
	pg := startPrivatePG(t)
	e := NewEnv(t, false)
	e.env["HOSTGATE_DATABASE_URL"] = pg.url()
	e.env["HOSTGATE_REDIS_URL"] = redistest.URL(t)
	e.env["HOSTGATE_REDIS_PREFIX"] = redistest.Prefix(t)
	h := e.StartHub()
	cust := NewCustomer(t, h)
	creds := cust.CreateHost(h, "pg-restart")
	e.StartAgent(creds, t.TempDir())
	eventually.True(t, 10*time.Second, "agent connected", func() bool { return cust.Connected(h, creds.HostID) })
	cust.Fund(h, 100000)

	const deadline = 10 * time.Second
	dir := t.TempDir()
	load := startChargeLoad(func() []string { return []string{h.URL} }, cust.Key, creds.HostID, dir, 8, deadline)
	eventually.True(t, 20*time.Second, "charged calls before the restart", load.answeredMore(50))

	// 1. A fast restart in the middle of the load.
	began := time.Now()
	pg.ctl("restart", "-m", "fast")
	restarted := time.Since(began)
	eventually.True(t, 20*time.Second, "charged calls after pg_ctl restart", load.answeredMore(20))

	// 2. Down for a while: /readyz says so, requests fail fast.
	pg.ctl("stop", "-m", "fast")
	downAt := time.Now()
	var body map[string]string
	eventually.True(t, 10*time.Second, "/readyz 503 naming the store", func() bool {
		var s int
		s, body = readyz(h)
		return s == 503 && body["pg"] != "" && body["pg"] != "ok" && body["redis"] == "ok"
	})
	notReadyAfter := time.Since(downAt)
	failedBefore := load.count(func(o chargeOutcome) bool { return o.Status >= 500 })
	eventually.True(t, 10*time.Second, "calls refused while the store is down", func() bool {
		return load.count(func(o chargeOutcome) bool { return o.Status >= 500 }) >= failedBefore+10
	})
	pg.ctl("start")
	upAt := time.Now()
	eventually.True(t, 10*time.Second, "/readyz 200 after the store is back", func() bool {
		s, _ := readyz(h)
		return s == 200
	})
	readyAfter := time.Since(upAt)
	eventually.True(t, 20*time.Second, "charged calls after the store is back", load.answeredMore(20))
	outcomes := load.end()
	if h.cmd.ProcessState != nil {
		t.Fatal("the hub exited")
	}

	var ok, refused, hung, other int
	var slowest time.Duration
	for _, o := range outcomes {
		slowest = max(slowest, o.Took)
		switch {
		case ok2xx(o):
			ok++
		case o.Status >= 500:
			refused++
		case o.Status == 0:
			hung++
			t.Errorf("no answer within %v: %s", deadline, o.Err)
		default:
			other++
			t.Errorf("answer %d during the restart: %s", o.Status, o.Err)
		}
	}
	r := checkLedger(t, h, cust.UserID, outcomes, int(load.sent.Load()))
	if n := madeDirs(t, dir); n > r.Charges {
		t.Errorf("the agent ran %d calls for %d charges", n, r.Charges)
	}
	battery.Report(t, "T60", "%d calls over pg_ctl restart -m fast (%v) and a stop/start: %d 2xx all in the ledger, %d 5xx, %d hung, slowest %v (deadline %v); /readyz 503 after %v (pg: %q), 200 %v after PG was up, hub not restarted; ledger consistent, %d charges",
		len(outcomes), restarted.Round(time.Millisecond), ok, refused, hung, slowest.Round(time.Millisecond), deadline,
		notReadyAfter.Round(time.Millisecond), firstN(body["pg"], 60), readyAfter.Round(time.Millisecond), r.Charges)
}
