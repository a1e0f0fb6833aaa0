//go:build linux

package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/battery"
	"hostgate/internal/eventually"
	"hostgate/internal/pgtest"
)

// TestRedisLossUnderLoad (battery T61): a hub on PostgreSQL and a private
// Redis carries charged calls while Redis is shut down without saving and
// restarted empty. While it is down /readyz answers 503 naming Redis, calls
// are answered (2xx, or a 5xx with a JSON error) within their deadline, and
// password guessing is still bounded by the store's lockout (docs/security.md
// "Rate limits": when coordination cannot count, the rate limit lets the
// request go on and the lockout bounds guesses — the repository's decision
// in place of a local limiter). Once Redis is back: /readyz 200, the
// agent's presence rebuilt (seen from a second instance, which knows it
// only through Redis), a terminal ticket issued before the loss
// refused and a new one accepted, calls succeed again, and the ledger holds
// every answered charge once.
func TestRedisLossUnderLoad(t *testing.T) {
	t.Parallel()
	rd := startPrivateRedis(t)
	e := NewEnv(t, false)
	e.env["HOSTGATE_DATABASE_URL"] = pgtest.NewDatabase(t)
	e.env["HOSTGATE_REDIS_URL"] = rd.url()
	e.env["HOSTGATE_REDIS_PREFIX"] = "t61:"
	h, h2 := e.StartHub(), e.StartHub()
	cust := NewCustomer(t, h)
	creds := cust.CreateHost(h, "redis-loss")
	e.StartAgent(creds, t.TempDir())
	// The other instance sees the agent through presence in Redis only.
	eventually.True(t, 10*time.Second, "agent connected", func() bool { return cust.Connected(h2, creds.HostID) })
	cust.Fund(h, 100000)
	var before struct{ Ticket string }
	if s := call(t, "POST", h.URL+"/v1/user/hosts/"+creds.HostID+"/terminal/ticket", cust.Token, nil, &before); s != 200 {
		t.Fatalf("terminal ticket: %d", s)
	}

	const deadline = 10 * time.Second
	dir := t.TempDir()
	load := startChargeLoad(func() []string { return []string{h.URL} }, cust.Key, creds.HostID, dir, 4, deadline)
	eventually.True(t, 20*time.Second, "charged calls before the loss", load.answeredMore(30))

	rd.shutdownNoSave()
	downAt := time.Now()
	var body map[string]string
	eventually.True(t, 10*time.Second, "/readyz 503 naming redis", func() bool {
		var s int
		s, body = readyz(h)
		return s == 503 && body["redis"] != "" && body["redis"] != "ok" && body["pg"] == "ok"
	})
	notReadyAfter := time.Since(downAt)

	// Password guessing while Redis is down: the store's lockout still
	// locks the name after 5 failures.
	email := fmt.Sprintf("t61-%d@example.com", time.Now().UnixNano())
	var codes []int
	for range 6 {
		codes = append(codes, call(t, "POST", h.URL+"/v1/public/auth/login", "", map[string]string{"email": email, "password": "wrong password here"}, nil))
	}
	if codes[5] != http.StatusLocked {
		t.Errorf("6 wrong logins while Redis is down answered %v; want the 6th 423 account_locked", codes)
	}

	// The agent's instance noticed the outage (its presence keeper's ping).
	eventually.True(t, 10*time.Second, "the outage noticed", func() bool {
		return strings.Contains(h.out.String(), "coordination unreachable")
	})
	rd.start()
	upAt := time.Now()
	eventually.True(t, 10*time.Second, "/readyz 200 after Redis is back", func() bool {
		s, _ := readyz(h)
		return s == 200
	})
	readyAfter := time.Since(upAt)
	eventually.True(t, 10*time.Second, "presence rebuilt", func() bool { return cust.Connected(h2, creds.HostID) })
	presenceAfter := time.Since(upAt)

	ticketStatus := func(ticket string) int {
		w := &wsTerm{closed: make(chan struct{})}
		conn, resp, err := gws.NewClient(w, &gws.ClientOption{Addr: "ws://" + h.addr + "/v1/user/hosts/" + creds.HostID + "/terminal/ws?ticket=" + ticket})
		if err == nil {
			conn.WriteClose(1000, nil)
			_ = conn.NetConn().Close()
			return http.StatusSwitchingProtocols
		}
		if resp == nil {
			t.Fatalf("terminal socket: %v", err)
		}
		return resp.StatusCode
	}
	if s := ticketStatus(before.Ticket); s != http.StatusUnauthorized {
		t.Errorf("a ticket issued before the loss: %d, want 401", s)
	}
	var after struct{ Ticket string }
	if s := call(t, "POST", h.URL+"/v1/user/hosts/"+creds.HostID+"/terminal/ticket", cust.Token, nil, &after); s != 200 {
		t.Fatalf("terminal ticket after the loss: %d", s)
	}
	if s := ticketStatus(after.Ticket); s != http.StatusSwitchingProtocols {
		t.Errorf("a ticket issued after Redis came back: %d, want 101", s)
	}
	eventually.True(t, 20*time.Second, "charged calls after Redis is back", load.answeredMore(20))
	outcomes := load.end()

	var ok, refused, hung, other int
	var slowest time.Duration
	for _, o := range outcomes {
		slowest = max(slowest, o.Took)
		switch {
		case ok2xx(o):
			ok++
		case o.Status >= 500 && len(o.Err) > 0 && o.Err[0] == '{':
			refused++
		case o.Status == 0:
			hung++
			t.Errorf("no answer within %v: %s", deadline, o.Err)
		default:
			other++
			t.Errorf("answer %d while Redis was lost: %s", o.Status, o.Err)
		}
	}
	r := checkLedger(t, h, cust.UserID, outcomes, int(load.sent.Load()))
	if n := madeDirs(t, dir); n > r.Charges {
		t.Errorf("the agent ran %d calls for %d charges", n, r.Charges)
	}
	battery.Report(t, "T61", "%d calls over Redis SHUTDOWN NOSAVE + empty restart: %d 2xx all in the ledger, %d JSON 5xx, %d hung, slowest %v; /readyz 503 after %v (redis: %q), 200 %v after Redis was up; presence back in %v; pre-loss ticket 401, new ticket 101; 6 wrong logins while down → %v (store lockout); ledger consistent, %d charges",
		len(outcomes), ok, refused, hung, slowest.Round(time.Millisecond), notReadyAfter.Round(time.Millisecond), firstN(body["redis"], 60),
		readyAfter.Round(time.Millisecond), presenceAfter.Round(time.Millisecond), codes, r.Charges)
}
