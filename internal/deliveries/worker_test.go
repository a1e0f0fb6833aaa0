package deliveries_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/accounts"
	"hostgate/internal/battery"
	"hostgate/internal/deliveries"
	"hostgate/internal/eventually"
	"hostgate/internal/hosts"
	"hostgate/internal/keyring"
	"hostgate/internal/paging"
	"hostgate/internal/pgtest"
	"hostgate/internal/store"
	"hostgate/internal/store/postgres"
	"hostgate/internal/store/sqlite"
	"hostgate/internal/webhooks"
)

var _ deliveries.Sealer = (*keyring.Keyring)(nil)

// engines runs f over a fresh SQLite store and a fresh PostgreSQL store.
func engines(t *testing.T, f func(t *testing.T, e *env)) {
	t.Run("sqlite", func(t *testing.T) {
		db, err := sqlite.Open(t.Context(), filepath.Join(sqliteDir(t), "hostgate.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		f(t, newEnv(t, store.New(db)))
	})
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(t.Context(), pgtest.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		f(t, newEnv(t, store.New(db)))
	})
}

// sqliteDir is a directory for one test's SQLite files, removed after its
// database closes (the caller registers the close after this). Once, in
// CI, t.TempDir's removal failed with "directory not empty": a file
// appeared after the directory was listed. The removal here tries again
// once and names what it found, so the next occurrence says which file,
// instead of failing a test whose deliveries all checked out.
func sqliteDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "deliveries-sqlite-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		err := os.RemoveAll(dir)
		if err == nil {
			return
		}
		var left []string
		if entries, rerr := os.ReadDir(dir); rerr == nil {
			for _, e := range entries {
				left = append(left, e.Name())
			}
		}
		t.Logf("removing %s: %v; left: %v; removing again", dir, err, left)
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing %s: %v", dir, err)
		}
	})
	return dir
}

// env is a store with one user, a keyring and a bid counter.
type env struct {
	s    store.Store
	kr   *keyring.Keyring
	user string
	bids atomic.Int64
}

func newEnv(t *testing.T, s store.Store) *env {
	kr, err := keyring.New(rand32(), rand32())
	if err != nil {
		t.Fatal(err)
	}
	u := accounts.User{ID: uuid.NewString(), Email: "ann@example.com", DisplayName: "Ann", Status: accounts.StatusActive, CreatedAt: time.Now()}
	sess := accounts.Session{ID: uuid.NewString(), UserID: u.ID, CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}
	if err := s.Accounts.CreateUser(t.Context(), u, "h", sess, []byte(u.ID)); err != nil {
		t.Fatal(err)
	}
	return &env{s: s, kr: kr, user: u.ID}
}

func rand32() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
}

// host creates a host and returns its id.
func (e *env) host(t *testing.T) string {
	t.Helper()
	h := hosts.Host{ID: uuid.NewString(), UserID: e.user, Name: "web", BID: e.bids.Add(1), ListenPort: hosts.DefaultListenPort,
		Status: hosts.StatusPending, CreatedAt: time.Now()}
	if err := e.s.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: []byte("x")}, nil); err != nil {
		t.Fatal(err)
	}
	return h.ID
}

// secret is the i-th secret of a host's chain.
func secret(i int) string { return fmt.Sprintf("%032x", i+1) }

// queue queues the change from secret(i) to secret(i+1) on hostID, sent to
// target, and returns its id.
func (e *env) queue(t *testing.T, hostID, target string, i int) string {
	t.Helper()
	ev := webhooks.Event{DeliveryID: uuid.NewString(), UserID: e.user, HostID: hostID, HostName: "web",
		Source: webhooks.SourceWeb, OccurredAt: time.Now(), TargetURL: target,
		After: webhooks.After{BID: 1, SecretKey: webhooks.Secret(secret(i + 1)), ReportURL: target}, SigningKey: webhooks.Secret(secret(i))}
	d, err := deliveries.New(ev, webhooks.FormatA, e.kr, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.s.Deliveries.EnqueueDelivery(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

func (e *env) worker(instance string) *deliveries.Worker {
	return &deliveries.Worker{Store: e.s.Deliveries, Sealer: e.kr, Instance: instance, AllowPrivate: true,
		Scale: 0.0001, Interval: 10 * time.Millisecond}
}

// start runs w until the test ends.
func start(t *testing.T, w *deliveries.Worker) {
	// Not t.Context: it ends before cleanup, and the worker must stop
	// before the store closes.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// get returns the delivery id of hostID.
func (e *env) get(t *testing.T, hostID, id string) deliveries.Delivery {
	t.Helper()
	list, err := e.s.Deliveries.ListDeliveries(t.Context(), hostID, deliveries.MaxLimit)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range list {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("delivery %s not found", id)
	return deliveries.Delivery{}
}

// settle is how long a delivery may take to reach a final status.
const settle = 30 * time.Second

// status is a check for eventually.Error: nil once the delivery id of
// hostID has status, else what it has instead.
func (e *env) status(t *testing.T, hostID, id string, status deliveries.Status) func() error {
	return func() error {
		if d := e.get(t, hostID, id); d.Status != status {
			return fmt.Errorf("delivery %s: status %q, want %q (attempts %d, last error %q)", id, d.Status, status, d.Attempts, d.LastError)
		}
		return nil
	}
}

// receiver is a format A receiver for many hosts (one per path), written
// from docs/webhooks.md: repeats first, verify with the secret held, adopt.
type receiver struct {
	failing atomic.Bool
	mu      sync.Mutex
	secrets map[string]string    // host id → secret held
	seen    map[string]bool      // processed delivery ids
	hits    map[string]int       // requests per delivery id
	first   map[string]time.Time // delivery id → when its first request came
	order   map[string][]string  // host id → adopted delivery ids in order
	busy    map[string]bool      // host id → a request in progress
	errs    []string
	srv     *httptest.Server
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{secrets: map[string]string{}, seen: map[string]bool{}, hits: map[string]int{}, first: map[string]time.Time{},
		order: map[string][]string{}, busy: map[string]bool{}}
	rc.srv = httptest.NewServer(rc)
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) url(hostID string) string { return rc.srv.URL + "/h/" + hostID }

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hostID := strings.TrimPrefix(r.URL.Path, "/h/")
	body, _ := io.ReadAll(r.Body)
	id := r.Header.Get(webhooks.HeaderDelivery)
	rc.mu.Lock()
	rc.hits[id]++
	if _, ok := rc.first[id]; !ok {
		rc.first[id] = time.Now()
	}
	if rc.busy[hostID] {
		rc.errs = append(rc.errs, "two concurrent requests for host "+hostID)
	}
	rc.busy[hostID] = true
	rc.mu.Unlock()
	time.Sleep(time.Millisecond) // the receiver's work: widens the window for overlapping sends
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.busy[hostID] = false
	if rc.failing.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	if rc.seen[id] {
		return // a repeat: 200
	}
	held, ok := rc.secrets[hostID]
	if !ok {
		held = secret(0)
	}
	ev, err := webhooks.VerifyA(r.Header, body, held, time.Now(), webhooks.Window)
	if err != nil {
		http.Error(w, "refused", http.StatusUnauthorized)
		return
	}
	rc.seen[id] = true
	rc.secrets[hostID] = string(ev.Data.SecretKey)
	rc.order[hostID] = append(rc.order[hostID], id)
}

func (rc *receiver) hitsOf(id string) int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.hits[id]
}

func TestSuccess(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		rc := newReceiver(t)
		h := e.host(t)
		id := e.queue(t, h, rc.url(h), 0)
		w := e.worker("i1")
		if n, err := w.RunOnce(t.Context()); n != 1 || err != nil {
			t.Fatalf("RunOnce: %d, %v", n, err)
		}
		d := e.get(t, h, id)
		if d.Status != deliveries.StatusSuccess || d.Attempts != 1 || d.HTTPStatus == nil || *d.HTTPStatus != 200 ||
			d.DeliveredAt == nil || d.LastError != "" {
			t.Errorf("after RunOnce: %+v", d)
		}
		if got := rc.order[h]; len(got) != 1 || got[0] != id {
			t.Errorf("receiver adopted %v, want [%s]", got, id)
		}
	})
}

func TestRetriesUntilDeadLetter(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		rc := newReceiver(t)
		rc.failing.Store(true)
		h := e.host(t)
		id := e.queue(t, h, rc.url(h), 0)
		start(t, e.worker("i1"))
		eventually.Error(t, settle, "dead letter", e.status(t, h, id, deliveries.StatusDeadLetter))
		d := e.get(t, h, id)
		if d.Attempts != 5 || d.HTTPStatus == nil || *d.HTTPStatus != 503 || d.LastError != "receiver answered 503" {
			t.Errorf("dead letter: %+v", d)
		}
		// No automatic retry after dead: the host's next delivery, sent
		// only once no earlier one of the host is unfinished, goes out
		// alone.
		rc.failing.Store(false)
		next := e.queue(t, h, rc.url(h), 0)
		eventually.Error(t, settle, "the next delivery", e.status(t, h, next, deliveries.StatusSuccess))
		if n := rc.hitsOf(id); n != 5 {
			t.Errorf("receiver got %d attempts, want 5", n)
		}
	})
}

func TestFailingReceiverHoldsBackLaterDeliveries(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		rc := newReceiver(t)
		rc.failing.Store(true)
		h := e.host(t)
		ids := []string{e.queue(t, h, rc.url(h), 0), e.queue(t, h, rc.url(h), 1), e.queue(t, h, rc.url(h), 2)}
		w := e.worker("i1")
		w.Scale = 0.00002 // 30 s → 0.6 ms … 30 min → 36 ms: stays under five failures for a while
		start(t, w)
		eventually.True(t, 5*time.Second, "a second attempt at the first delivery", func() bool { return rc.hitsOf(ids[0]) >= 2 })
		rc.failing.Store(false)
		for _, id := range ids {
			eventually.Error(t, settle, "success", e.status(t, h, id, deliveries.StatusSuccess))
		}
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if got := rc.order[h]; fmt.Sprint(got) != fmt.Sprint(ids) {
			t.Errorf("adopted %v, want in order %v", got, ids)
		}
		if rc.hits[ids[1]] != 1 || rc.hits[ids[2]] != 1 {
			t.Errorf("later deliveries were sent before the first succeeded: hits %v", rc.hits)
		}
		// The first request of each later delivery came after the one
		// before it was accepted: never while it was failing.
		for i := 1; i < len(ids); i++ {
			if !rc.first[ids[i]].After(rc.first[ids[i-1]]) {
				t.Errorf("delivery %d first sent at %v, before delivery %d (%v)", i+1, rc.first[ids[i]], i, rc.first[ids[i-1]])
			}
		}
		if rc.secrets[h] != secret(len(ids)) {
			t.Errorf("receiver holds %s, want the last secret %s", rc.secrets[h], secret(len(ids)))
		}
		if !t.Failed() {
			battery.Report(t, "T07", "receiver down for %d attempts of d1, %d changes queued behind it: d2, d3 first sent after d1 succeeded (1 attempt each), adopted in order, receiver ends with the last secret, all success (%s)",
				rc.hits[ids[0]]-1, len(ids)-1, engineOf(t))
		}
	})
}

func TestManualRetryOfDeadLetter(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		rc := newReceiver(t)
		rc.failing.Store(true)
		h := e.host(t)
		id := e.queue(t, h, rc.url(h), 0)
		start(t, e.worker("i1"))
		eventually.Error(t, settle, "dead letter", e.status(t, h, id, deliveries.StatusDeadLetter))
		rc.failing.Store(false)
		if _, err := e.s.Deliveries.RetryDelivery(t.Context(), h, id, time.Now()); err != nil {
			t.Fatal(err)
		}
		eventually.Error(t, settle, "success after the manual retry", e.status(t, h, id, deliveries.StatusSuccess))
		if d := e.get(t, h, id); d.Attempts != 6 {
			t.Errorf("attempts after a manual retry: %d, want 6 (kept, plus one)", d.Attempts)
		}
	})
}

func TestTwoInstancesShareOneQueue(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		rc := newReceiver(t)
		const hostsN, each = 50, 10
		type queued struct{ host, id string }
		var all []queued
		for range hostsN {
			h := e.host(t)
			for i := range each {
				all = append(all, queued{h, e.queue(t, h, rc.url(h), i)})
			}
		}
		for _, name := range []string{"hub-a", "hub-b"} {
			w := e.worker(name)
			w.Lease = 5 * time.Minute // far longer than the test: no legitimate re-send
			w.Batch = 7
			start(t, w)
		}
		for _, q := range all {
			eventually.Error(t, settle, "success", e.status(t, q.host, q.id, deliveries.StatusSuccess))
		}
		rc.mu.Lock()
		defer rc.mu.Unlock()
		for _, q := range all {
			if n := rc.hits[q.id]; n != 1 {
				t.Errorf("delivery %s received %d times, want once", q.id, n)
			}
		}
		if len(rc.seen) != hostsN*each {
			t.Errorf("receiver processed %d deliveries, want %d", len(rc.seen), hostsN*each)
		}
		if len(rc.errs) > 0 {
			t.Errorf("receiver: %v", rc.errs[:min(len(rc.errs), 5)])
		}
		dupes := 0
		for _, n := range rc.hits {
			dupes += n - 1
		}
		battery.Report(t, "T08", "run 1: %d deliveries (%d hosts × %d) through 2 instances: %d distinct ids received, %d duplicates, never two at once per host (%s)",
			hostsN*each, hostsN, each, len(rc.hits), dupes, engineOf(t))
	})
}

func TestLeaseExpiryTakesOver(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		rc := newReceiver(t)
		h := e.host(t)
		id := e.queue(t, h, rc.url(h), 0)
		const lease = 300 * time.Millisecond
		claimedAt := time.Now()
		claimed, err := e.s.Deliveries.ClaimDue(t.Context(), "crashed", claimedAt, lease, 10)
		if err != nil || len(claimed) != 1 {
			t.Fatalf("ClaimDue by the instance that crashes: %v, %v", claimed, err)
		}
		start(t, e.worker("survivor"))
		eventually.Error(t, settle, "success", e.status(t, h, id, deliveries.StatusSuccess))
		rc.mu.Lock()
		n, first := rc.hits[id], rc.first[id]
		rc.mu.Unlock()
		if n != 1 {
			t.Errorf("receiver got %d requests, want 1", n)
		}
		// The store keeps microseconds: the lease may end up to 1 µs early.
		if expiry := claimedAt.Add(lease - time.Microsecond); first.Before(expiry) {
			t.Errorf("sent %v before the lease of the other instance expired", expiry.Sub(first))
		}
		err = e.s.Deliveries.FinishDelivery(t.Context(), id, "crashed", deliveries.Result{Status: deliveries.StatusSuccess, At: time.Now()})
		if err == nil {
			t.Error("FinishDelivery by the crashed owner: got nil error, want ErrLeaseLost")
		}
	})
}

// TestRefusesEmbeddedPrivateTargets: a target whose IPv6 address embeds
// the loopback receiver's IPv4 address is refused when dialled, like the
// IPv4 address itself.
func TestRefusesEmbeddedPrivateTargets(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		rc := newReceiver(t) // on 127.0.0.1
		port := rc.srv.URL[strings.LastIndex(rc.srv.URL, ":")+1:]
		h := e.host(t)
		id := e.queue(t, h, "http://[64:ff9b::7f00:1]:"+port+"/h/"+h, 0)
		w := e.worker("i1")
		w.AllowPrivate = false
		if _, err := w.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		d := e.get(t, h, id)
		if d.Status != deliveries.StatusRetrying || d.Attempts != 1 || d.HTTPStatus != nil ||
			d.LastError != deliveries.ReasonNotPublic {
			t.Errorf("after a refused attempt: status %q attempts %d http %v error %q", d.Status, d.Attempts, d.HTTPStatus, d.LastError)
		}
	})
}

func TestRefusesPrivateTargets(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		rc := newReceiver(t) // on 127.0.0.1
		h := e.host(t)
		id := e.queue(t, h, rc.url(h), 0)
		w := e.worker("i1")
		w.AllowPrivate = false
		if _, err := w.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		d := e.get(t, h, id)
		if d.Status != deliveries.StatusRetrying || d.Attempts != 1 || d.HTTPStatus != nil ||
			d.LastError != deliveries.ReasonNotPublic {
			t.Errorf("after a refused attempt: status %q attempts %d http %v error %q", d.Status, d.Attempts, d.HTTPStatus, d.LastError)
		}
		if n := rc.hitsOf(id); n != 0 {
			t.Errorf("receiver got %d requests, want none", n)
		}
	})
}

// TestLastErrorHidesTheHubsNetwork: when a name does not resolve, or
// resolves to an internal address, the last_error stored and served for
// a host's delivery and for a user-level one (job.finished) says what
// failed without the resolver's address or the address a name resolved
// to; the hub's log keeps that detail, with the delivery id.
func TestLastErrorHidesTheHubsNetwork(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		const userSecret = "whsec_hidden"
		cases := []struct {
			name, target string
			aaaa         netip.Addr
			want         string
			logged       string // in the log line's cause
		}{
			{"unknown name", "http://0x7f.example.test./h", netip.Addr{}, deliveries.ReasonNameNotFound, "no such host"},
			{"internal address", "http://intranet.example.test./h", netip.MustParseAddr("fd12:3456::7"), deliveries.ReasonNotPublic, "fd12:3456::7"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				var logs bytes.Buffer
				w := e.worker("i1")
				w.AllowPrivate = false
				w.Client = deliveries.NewClientResolving(c.aaaa)
				w.Log = slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))
				h := e.host(t)
				hostDelivery := e.queue(t, h, c.target, 0)
				userDelivery := e.userEvent(t, c.target, userSecret)
				if _, err := w.RunOnce(t.Context()); err != nil {
					t.Fatal(err)
				}
				served, err := deliveries.NewService(e.s.Deliveries, func(context.Context, string, string) (string, error) { return h, nil }, w).
					List(t.Context(), e.user, h, 10)
				if err != nil || len(served) != 1 {
					t.Fatalf("served host deliveries: %v, %v", served, err)
				}
				userPage, err := deliveries.NewUserService(e.s.Deliveries, w).ListUserDeliveries(t.Context(), e.user, paging.Page{Limit: 200})
				if err != nil {
					t.Fatal(err)
				}
				var servedUser deliveries.Delivery
				for _, d := range userPage.Items {
					if d.ID == userDelivery {
						servedUser = d
					}
				}
				for _, d := range []deliveries.Delivery{e.get(t, h, hostDelivery), served[0], e.userGet(t, userDelivery), servedUser} {
					if d.Status != deliveries.StatusRetrying || d.LastError != c.want {
						t.Errorf("delivery %s: status %q last_error %q, want retrying %q", d.ID, d.Status, d.LastError, c.want)
					}
					if addr := anyAddress.FindString(d.LastError); addr != "" {
						t.Errorf("delivery %s: last_error %q holds the address %q", d.ID, d.LastError, addr)
					}
				}
				for _, id := range []string{hostDelivery, userDelivery} {
					line := logLineOf(logs.String(), id)
					if !strings.Contains(line, c.logged) {
						t.Errorf("log of delivery %s = %q, want the detail %q", id, line, c.logged)
					}
					if strings.Contains(line, userSecret) || strings.Contains(line, secret(1)) {
						t.Errorf("log of delivery %s holds a secret: %q", id, line)
					}
				}
			})
		}
	})
}

// anyAddress matches an IPv4 address, an IPv6 address (two colons with hex
// digits around them) or a host:port.
var anyAddress = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|[0-9a-fA-F]*:[0-9a-fA-F]*:|:\d+\b`)

// logLineOf is the line of log that names delivery id, or "".
func logLineOf(log, id string) string {
	for line := range strings.Lines(log) {
		if strings.Contains(line, "delivery_id="+id) {
			return line
		}
	}
	return ""
}

// syncWriter serializes the worker's parallel log writes.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
