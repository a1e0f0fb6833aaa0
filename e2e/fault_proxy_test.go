//go:build linux

package e2e

import (
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"hostgate/internal/battery"
	"hostgate/internal/eventually"
	"hostgate/internal/pgtest"
	"hostgate/internal/redistest"
)

// toxicProxy is a TCP proxy in the way of one dependency, with the faults
// toxiproxy would inject: latency on every answer, reset_peer (every
// connection reset with an RST) and a bandwidth cap.
type toxicProxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	latency time.Duration // added before each chunk the target sends back
	rate    int           // bytes per second either way; 0: unlimited
	conns   []net.Conn
}

func startToxicProxy(t *testing.T, target string) *toxicProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &toxicProxy{ln: ln, target: target}
	go p.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		p.resetPeer()
	})
	return p
}

func (p *toxicProxy) addr() string { return p.ln.Addr().String() }

func (p *toxicProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, u)
		p.mu.Unlock()
		go p.forward(c, u, false)
		go p.forward(u, c, true)
	}
}

func (p *toxicProxy) set(latency time.Duration, rate int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency, p.rate = latency, rate
}

func (p *toxicProxy) toxics() (time.Duration, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.latency, p.rate
}

// forward copies from → to, delaying answers (back) by the latency and
// pacing every chunk to the bandwidth.
func (p *toxicProxy) forward(from, to net.Conn, back bool) {
	defer to.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			latency, rate := p.toxics()
			if back && latency > 0 {
				time.Sleep(latency) // the injected network delay
			}
			data := buf[:n]
			for len(data) > 0 {
				k := len(data)
				if rate > 0 {
					k = min(k, max(rate/10, 1))
				}
				if _, werr := to.Write(data[:k]); werr != nil {
					return
				}
				data = data[k:]
				if rate > 0 {
					time.Sleep(time.Duration(k) * time.Second / time.Duration(rate)) // the injected bandwidth
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// resetPeer resets every open connection (RST, SO_LINGER 0), both ends.
func (p *toxicProxy) resetPeer() {
	p.mu.Lock()
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = c.Close()
	}
}

// viaProxy returns rawURL with its host:port replaced by a new toxic
// proxy's, and the proxy.
func viaProxy(t *testing.T, rawURL string) (string, *toxicProxy) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	p := startToxicProxy(t, u.Host)
	u.Host = p.addr()
	return u.String(), p
}

// TestDependencyFaultProxy (battery T62, CI size): the hub reaches
// PostgreSQL and Redis through fault proxies while it carries charged
// calls; in turn PostgreSQL answers 2 s late, every PostgreSQL and Redis
// connection is reset (reset_peer), and Redis is capped at 1 KB/s. /readyz
// answers within its probe timeout under the latency; every request is
// answered within its (30 s) deadline; after each fault calls succeed
// again without a restart and /readyz returns to 200; the ledger holds
// every answered charge once.
func TestDependencyFaultProxy(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, false)
	pgURL, pg := viaProxy(t, pgtest.NewDatabase(t))
	redisURL, rd := viaProxy(t, redistest.URL(t))
	e.env["HOSTGATE_DATABASE_URL"] = pgURL
	e.env["HOSTGATE_REDIS_URL"] = redisURL
	e.env["HOSTGATE_REDIS_PREFIX"] = redistest.Prefix(t)
	h := e.StartHub()
	cust := NewCustomer(t, h)
	creds := cust.CreateHost(h, "toxic")
	e.StartAgent(creds, t.TempDir())
	eventually.True(t, 10*time.Second, "agent connected", func() bool { return cust.Connected(h, creds.HostID) })
	cust.Fund(h, 100000)

	const deadline = 30 * time.Second
	dir := t.TempDir()
	load := startChargeLoad(func() []string { return []string{h.URL} }, cust.Key, creds.HostID, dir, 4, deadline)
	eventually.True(t, 20*time.Second, "charged calls before the faults", load.answeredMore(30))
	ready := func(what string) time.Duration {
		began := time.Now()
		eventually.True(t, 10*time.Second, "/readyz 200 "+what, func() bool {
			s, _ := readyz(h)
			return s == 200
		})
		return time.Since(began)
	}
	phases := map[string]time.Duration{}

	// 2 s latency on PostgreSQL's answers: calls slow down and finish.
	pg.set(2*time.Second, 0)
	slowBase := load.count(ok2xx)
	// /readyz bounds its probe (2 s): it answers promptly, not after the
	// store does.
	var readyTook time.Duration
	var readyStatus int
	for range 3 {
		began := time.Now()
		readyStatus, _ = readyz(h)
		readyTook = max(readyTook, time.Since(began))
	}
	if readyStatus == 0 || readyTook > 3500*time.Millisecond {
		t.Errorf("/readyz with a 2 s store latency: %d after %v; want an answer within its 2 s probe timeout", readyStatus, readyTook)
	}
	eventually.True(t, 40*time.Second, "calls answered through 2 s latency", func() bool { return load.count(ok2xx) >= slowBase+2 })
	pg.set(0, 0)
	phases["latency"] = ready("after latency")
	eventually.True(t, 20*time.Second, "calls after latency", load.answeredMore(20))

	// reset_peer on both.
	pg.resetPeer()
	rd.resetPeer()
	began := time.Now()
	eventually.True(t, 10*time.Second, "calls after reset_peer", load.answeredMore(20))
	phases["reset_peer→2xx"] = time.Since(began)
	phases["reset_peer"] = ready("after reset_peer")

	// 1 KB/s to Redis.
	rd.set(0, 1024)
	rd.resetPeer() // new connections carry the cap from their first byte
	capBase := load.count(func(o chargeOutcome) bool { return true })
	eventually.True(t, 20*time.Second, "calls answered with Redis at 1 KB/s", func() bool {
		return load.count(func(o chargeOutcome) bool { return true }) >= capBase+20
	})
	rd.set(0, 0)
	rd.resetPeer()
	phases["1KB/s"] = ready("after the bandwidth cap")
	eventually.True(t, 20*time.Second, "calls after the faults", load.answeredMore(20))
	outcomes := load.end()

	var ok, refused, hung int
	var slowest time.Duration
	for _, o := range outcomes {
		slowest = max(slowest, o.Took)
		switch {
		case ok2xx(o):
			ok++
		case o.Status == 0:
			hung++
			t.Errorf("no answer within %v: %s", deadline, o.Err)
		default:
			refused++
		}
	}
	r := checkLedger(t, h, cust.UserID, outcomes, int(load.sent.Load()))
	if n := madeDirs(t, dir); n > r.Charges {
		t.Errorf("the agent ran %d calls for %d charges", n, r.Charges)
	}
	battery.Report(t, "T62", "%d calls through PG 2 s latency, PG+Redis reset_peer, Redis 1 KB/s: %d 2xx all in the ledger, %d refused, %d hung (deadline %v), slowest %v; /readyz answered in ≤%v under the latency (%d); 200 again %v after latency, %v after reset_peer (2xx again in %v), %v after the cap; ledger consistent, %d charges",
		len(outcomes), ok, refused, hung, deadline, slowest.Round(time.Millisecond), readyTook.Round(time.Millisecond), readyStatus, phases["latency"].Round(time.Millisecond),
		phases["reset_peer"].Round(time.Millisecond), phases["reset_peer→2xx"].Round(time.Millisecond), phases["1KB/s"].Round(time.Millisecond), r.Charges)
}
