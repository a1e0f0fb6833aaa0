//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// The fault tests (fault_*_test.go) break the hub or what it depends on
// under load and then check the money: every answered charge is in the
// ledger, no charge without its call, nothing twice, balance = Σ events.

// kill9 ends the hub with SIGKILL, as a crash would, and waits for it.
func (h *Hub) kill9() {
	_ = h.cmd.Process.Kill()
	<-h.done
	h.cmd.ProcessState = &os.ProcessState{}
}

// chargeOutcome is what the client saw of one charged call.
type chargeOutcome struct {
	Status  int    // 0: no answer (transport error, deadline)
	Balance string // X-Hostgate-Balance on a 2xx
	Took    time.Duration
	Err     string
}

// chargeLoad sends charged calls (files/dir mkdir, 1 token) from workers
// goroutines until stop is closed, each with deadline per call, against
// the hub URL urls()[i%len] chooses. Every call makes a directory of its
// own under dir, so the directories made are the calls the agent ran.
type chargeLoad struct {
	mu       sync.Mutex
	outcomes []chargeOutcome
	sent     atomic.Int64
	stop     chan struct{}
	wg       sync.WaitGroup
}

func startChargeLoad(urls func() []string, key, hostID, dir string, workers int, deadline time.Duration) *chargeLoad {
	l := &chargeLoad{stop: make(chan struct{})}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers, DisableKeepAlives: false}}
	for w := range workers {
		l.wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				u := urls()
				target := u[(w+i)%len(u)]
				n := l.sent.Add(1)
				body, _ := json.Marshal(map[string]any{"controls": 1, "path": filepath.Join(dir, strconv.FormatInt(n, 10))})
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				req, _ := http.NewRequestWithContext(ctx, "POST", target+"/v1/api/hosts/"+hostID+"/files/dir", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+key)
				began := time.Now()
				resp, err := client.Do(req)
				o := chargeOutcome{}
				if err != nil {
					o.Err = err.Error()
				} else {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					o.Status = resp.StatusCode
					if resp.StatusCode < 300 {
						o.Balance = resp.Header.Get("X-Hostgate-Balance")
					} else {
						o.Err = string(b)
					}
				}
				cancel()
				o.Took = time.Since(began)
				l.mu.Lock()
				l.outcomes = append(l.outcomes, o)
				l.mu.Unlock()
				if err != nil || o.Status >= 500 {
					// A refusing or absent hub: do not spin.
					select {
					case <-l.stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}
		})
	}
	return l
}

// count returns how many outcomes so far satisfy f.
func (l *chargeLoad) count(f func(chargeOutcome) bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, o := range l.outcomes {
		if f(o) {
			n++
		}
	}
	return n
}

// end stops the load and returns every outcome.
// answeredMore returns a condition that holds once n more calls than now
// have been answered 2xx.
func (l *chargeLoad) answeredMore(n int) func() bool {
	base := l.count(ok2xx)
	return func() bool { return l.count(ok2xx) >= base+n }
}

func (l *chargeLoad) end() []chargeOutcome {
	close(l.stop)
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.outcomes
}

func ok2xx(o chargeOutcome) bool { return o.Status >= 200 && o.Status < 300 }

// ledgerEvent is one billing event as the admin API lists it.
type ledgerEvent struct {
	Kind         string  `json:"kind"`
	Tokens       float64 `json:"tokens"`
	BalanceAfter float64 `json:"balance_after"`
	RuleCode     string  `json:"rule_code"`
	HostID       string  `json:"host_id"`
	APIKeyID     string  `json:"api_key_id"`
}

// ledgerReport is what checkLedger found.
type ledgerReport struct {
	Charges int
	Credits float64
	Debits  float64
	Balance float64
}

// checkLedger reads the user's whole ledger from h and checks it against
// what the clients saw: the hub's own ledger check is consistent; balance
// = Σ credits − Σ debits; every charge names its call (rule code, host, API
// key); each charge has a balance after of its own (none applied twice);
// every 2xx answer's X-Hostgate-Balance is a charge's balance after (every
// answered call has its debit); and no more charges than calls sent.
func checkLedger(t *testing.T, h *Hub, userID string, outcomes []chargeOutcome, sent int) ledgerReport {
	t.Helper()
	tok := adminToken(t, h)
	var events []ledgerEvent
	for off := 0; ; off += 200 {
		var page struct {
			Items []ledgerEvent `json:"items"`
			Total int           `json:"total"`
		}
		if s := call(t, "GET", fmt.Sprintf("%s/v1/admin/users/%s/billing-events?limit=200&offset=%d", h.URL, userID, off), tok, nil, &page); s != 200 {
			t.Fatalf("billing events: %d", s)
		}
		events = append(events, page.Items...)
		if len(page.Items) == 0 || len(events) >= page.Total {
			break
		}
	}
	var lc struct {
		Balance    float64 `json:"balance"`
		EventsSum  float64 `json:"events_sum"`
		Consistent bool    `json:"consistent"`
	}
	if s := call(t, "GET", h.URL+"/v1/admin/users/"+userID+"/ledger-check", tok, nil, &lc); s != 200 {
		t.Fatalf("ledger check: %d", s)
	}
	r := ledgerReport{Balance: lc.Balance}
	after := map[string]int{}
	for _, e := range events {
		if e.Tokens >= 0 {
			r.Credits += e.Tokens
		} else {
			r.Debits -= e.Tokens
		}
		if e.Kind != "charge" {
			continue
		}
		r.Charges++
		if e.RuleCode == "" || e.HostID == "" || e.APIKeyID == "" {
			t.Errorf("charge without its call: %+v", e)
		}
		after[strconv.FormatFloat(e.BalanceAfter, 'f', -1, 64)]++
	}
	for b, n := range after {
		if n > 1 {
			t.Errorf("%d charges end at balance %s: one applied twice", n, b)
		}
	}
	if !lc.Consistent || lc.Balance != lc.EventsSum {
		t.Errorf("ledger check: %+v", lc)
	}
	if d := r.Credits - r.Debits; d != lc.Balance {
		t.Errorf("balance %v ≠ Σ credits %v − Σ debits %v", lc.Balance, r.Credits, r.Debits)
	}
	answered := 0
	for _, o := range outcomes {
		if !ok2xx(o) {
			continue
		}
		answered++
		if after[o.Balance] == 0 {
			t.Errorf("a 2xx with balance %q has no charge in the ledger", o.Balance)
		}
	}
	if r.Charges < answered || r.Charges > sent {
		t.Errorf("%d charges for %d answered and %d sent calls", r.Charges, answered, sent)
	}
	return r
}

// madeDirs counts the directories the agent made under dir: each is a call
// that ran, so a call that ran without its charge shows as more
// directories than charges.
func madeDirs(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(entries)
}

// privatePG is a PostgreSQL cluster of the test's own, so it can be
// restarted without touching the shared server.
type privatePG struct {
	t    *testing.T
	dir  string
	port string
}

const pgBin = "/usr/lib/postgresql/15/bin/"

// startPrivatePG initdbs and starts a cluster on a free port (as user
// postgres; the test runs as root). Skipped, or failed under CI=true, when
// that cannot be done here.
func startPrivatePG(t *testing.T) *privatePG {
	t.Helper()
	if os.Geteuid() != 0 {
		skipOrFail(t, "a private PostgreSQL cluster needs root (runuser)")
	}
	if _, err := os.Stat(pgBin + "initdb"); err != nil {
		skipOrFail(t, "no PostgreSQL 15 binaries: %v", err)
	}
	dir, err := os.MkdirTemp("", "hostgate-pg-")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(freeAddr(t))
	p := &privatePG{t: t, dir: dir, port: port}
	if out, err := exec.Command("chown", "postgres:postgres", dir).CombinedOutput(); err != nil {
		skipOrFail(t, "chown: %v %s", err, out)
	}
	if out, err := p.run(pgBin+"initdb", "-D", dir+"/data", "-A", "trust", "-U", "postgres", "--no-sync"); err != nil {
		skipOrFail(t, "initdb: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		_, _ = p.run(pgBin+"pg_ctl", "-D", dir+"/data", "stop", "-m", "immediate")
		_ = os.RemoveAll(dir)
	})
	p.ctl("start")
	return p
}

func (p *privatePG) run(args ...string) ([]byte, error) {
	return exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...).CombinedOutput()
}

// ctl runs pg_ctl start, restart -m fast or stop -m fast, and waits for it.
func (p *privatePG) ctl(action string, args ...string) {
	p.t.Helper()
	a := []string{pgBin + "pg_ctl", "-D", p.dir + "/data", "-w", "-l", p.dir + "/log", "-o",
		"-p " + p.port + " -k " + p.dir + " -c listen_addresses=127.0.0.1 -c fsync=off", action}
	if out, err := p.run(append(a, args...)...); err != nil {
		log, _ := os.ReadFile(p.dir + "/log")
		p.t.Fatalf("pg_ctl %s: %v\n%s\n%s", action, err, out, log)
	}
}

func (p *privatePG) url() string {
	return "postgres://postgres@127.0.0.1:" + p.port + "/postgres?sslmode=disable"
}

// privateRedis is a redis-server of the test's own, to lose and restart.
type privateRedis struct {
	t    *testing.T
	port string
	cmd  *exec.Cmd
	done chan struct{}
}

func startPrivateRedis(t *testing.T) *privateRedis {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		skipOrFail(t, "no redis-server: %v", err)
	}
	_, port, _ := net.SplitHostPort(freeAddr(t))
	r := &privateRedis{t: t, port: port}
	r.start()
	t.Cleanup(r.kill)
	return r
}

func (r *privateRedis) start() {
	r.t.Helper()
	r.cmd = exec.Command("redis-server", "--port", r.port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("redis-server: %v", err)
	}
	done := make(chan struct{})
	r.done = done
	go func() { _ = r.cmd.Wait(); close(done) }()
	eventually.True(r.t, 10*time.Second, "private redis up", func() bool {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+r.port, time.Second)
		if err != nil {
			return false
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(time.Second))
		_, _ = c.Write([]byte("PING\r\n"))
		b := make([]byte, 7)
		n, _ := io.ReadFull(c, b)
		return string(b[:n]) == "+PONG\r\n"
	})
}

// shutdownNoSave sends SHUTDOWN NOSAVE and waits for the server to exit.
func (r *privateRedis) shutdownNoSave() {
	r.t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+r.port, time.Second)
	if err != nil {
		r.t.Fatal(err)
	}
	_, _ = c.Write([]byte("SHUTDOWN NOSAVE\r\n"))
	c.Close()
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		r.t.Fatal("redis did not shut down")
	}
}

func (r *privateRedis) kill() {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
		<-r.done
	}
}

func (r *privateRedis) url() string { return "redis://127.0.0.1:" + r.port + "/0" }

// readyz returns /readyz's status and body fields.
func readyz(h *Hub) (int, map[string]string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", h.URL+"/readyz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	var body map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}
