package deliveries_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/accounts"
	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/battery"
	"hostgate/internal/deliveries"
	"hostgate/internal/hosts"
	"hostgate/internal/l1config"
	"hostgate/internal/webhooks"
)

// TestBattery runs the battery's webhook entries that share one store per
// engine, one after the other: each leaves no delivery unfinished, so no
// worker of one claims another's rows.
func TestBattery(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		t.Run("T02", func(t *testing.T) { batteryRetrySchedule(t, e) })
		t.Run("T03_T04", func(t *testing.T) { batteryDeadLetterAndConsoleRetry(t, e) })
		t.Run("T06", func(t *testing.T) { batterySignedWithTheSecretAtEnqueue(t, e) })
		t.Run("T01", func(t *testing.T) { batteryCrashPoints(t, e) })
		t.Run("T12", func(t *testing.T) { batteryNoURL(t, e) })
		t.Run("T13", func(t *testing.T) { batteryHistory(t, e) })
		t.Run("T10", func(t *testing.T) { batteryRedirects(t, e) }) // last: leaves retrying rows
	})
}

// The battery's webhook entries (docs/reliability.md, T01…T15) that run on
// a fake clock: the worker's Now and the receiver's clock are one fakeClock,
// and the test scans as the hub does, every 5 s of fake time.

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Now().UTC().Truncate(time.Second)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// queueAt queues the change from secret(i) to secret(i+1) on hostID at now.
func (e *env) queueAt(t *testing.T, hostID, target string, i int, now time.Time) string {
	t.Helper()
	ev := webhooks.Event{DeliveryID: uuid.NewString(), UserID: e.user, HostID: hostID, HostName: "web",
		Source: webhooks.SourceWeb, OccurredAt: now, TargetURL: target,
		After: webhooks.After{BID: 1, SecretKey: webhooks.Secret(secret(i + 1)), ReportURL: target}, SigningKey: webhooks.Secret(secret(i))}
	d, err := deliveries.New(ev, webhooks.FormatA, e.kr, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.s.Deliveries.EnqueueDelivery(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

// clockedWorker is a worker on clk with the spec's schedule (no Scale).
func (e *env) clockedWorker(clk *fakeClock) *deliveries.Worker {
	return &deliveries.Worker{Store: e.s.Deliveries, Sealer: e.kr, Instance: "i1", AllowPrivate: true, Now: clk.Now}
}

// attempt is one request a scriptedReceiver got.
type attempt struct {
	id       string
	at       time.Time // fake time it arrived
	t        int64     // the signature's t
	status   int       // what the receiver answered
	verified bool      // it verified with the secret the receiver held then
}

// scriptedReceiver is one host's format A receiver on a fake clock: it
// answers answer(n) to its n-th request (0-based) while that is not 200,
// and otherwise follows docs/webhooks.md section 4 (repeats first, verify
// with the secret held, adopt).
type scriptedReceiver struct {
	clk    *fakeClock
	answer func(n int) int
	mu     sync.Mutex
	held   string
	seen   map[string]bool
	got    []attempt
	srv    *httptest.Server
}

func newScriptedReceiver(t *testing.T, clk *fakeClock, answer func(n int) int) *scriptedReceiver {
	rc := &scriptedReceiver{clk: clk, answer: answer, held: secret(0), seen: map[string]bool{}}
	rc.srv = httptest.NewServer(rc)
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *scriptedReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	now := rc.clk.Now()
	a := attempt{id: r.Header.Get(webhooks.HeaderDelivery), at: now}
	_, _ = fmt.Sscanf(r.Header.Get(webhooks.HeaderSignature), "t=%d,", &a.t)
	_, err := webhooks.VerifyA(r.Header, body, rc.held, now, webhooks.Window)
	a.verified = err == nil
	a.status = rc.answer(len(rc.got))
	switch {
	case a.status != http.StatusOK:
	case rc.seen[a.id]:
	case err != nil:
		a.status = http.StatusUnauthorized
	default:
		ev, _ := webhooks.VerifyA(r.Header, body, rc.held, now, webhooks.Window)
		rc.seen[a.id] = true
		rc.held = string(ev.Data.SecretKey)
	}
	rc.got = append(rc.got, a)
	w.WriteHeader(a.status)
}

func (rc *scriptedReceiver) attempts() []attempt {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]attempt(nil), rc.got...)
}

// drive runs w as the hub's Run does on fake time, scanning on a 5 s grid
// from start (the scan period) but only where it matters: at the first
// grid point at or after the host's next due delivery, with a probe scan
// one period before it that must claim nothing, and at once again after a
// scan that claimed something. It stops when done says so, when the host
// has nothing left to send, or after limit; it returns how many scans ran.
func (e *env) drive(t *testing.T, w *deliveries.Worker, clk *fakeClock, start time.Time, limit time.Duration, hostID string, done func() bool) int {
	t.Helper()
	scans := 0
	for clk.Now().Sub(start) <= limit {
		n, err := w.RunOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		scans++
		if done != nil && done() {
			return scans
		}
		due, ok := e.nextDue(t, hostID)
		if !ok {
			return scans
		}
		if !due.After(clk.Now()) {
			if n == 0 {
				clk.Advance(deliveries.DefaultInterval)
			}
			continue
		}
		period := deliveries.DefaultInterval
		grid := start.Add((due.Sub(start) + period - 1) / period * period)
		if probe := grid.Add(-period); probe.After(clk.Now()) {
			clk.Advance(probe.Sub(clk.Now()))
			if n, err := w.RunOnce(t.Context()); n != 0 || err != nil {
				t.Fatalf("scan at +%v, before the delivery is due at +%v: claimed %d, %v", probe.Sub(start), due.Sub(start), n, err)
			}
			scans++
		}
		clk.Advance(grid.Sub(clk.Now()))
	}
	return scans
}

// nextDue is when the host's oldest unfinished delivery is due: the one
// ClaimDue hands out next.
func (e *env) nextDue(t *testing.T, hostID string) (time.Time, bool) {
	t.Helper()
	list, err := e.s.Deliveries.ListDeliveries(t.Context(), hostID, deliveries.MaxLimit)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(list) - 1; i >= 0; i-- { // newest first: the oldest is last
		if list[i].Status.Unfinished() {
			return list[i].NextAttemptAt, true
		}
	}
	return time.Time{}, false
}

// idle scans every period of fake time for limit and fails on any claim.
func idle(t *testing.T, w *deliveries.Worker, clk *fakeClock, period, limit time.Duration) int {
	t.Helper()
	scans := 0
	for end := clk.Now().Add(limit); !clk.Now().After(end); clk.Advance(period) {
		if n, err := w.RunOnce(t.Context()); n != 0 || err != nil {
			t.Fatalf("scan claimed %d, %v; want nothing", n, err)
		}
		scans++
	}
	return scans
}

// batteryRetrySchedule (battery T02): a receiver answering 500 three
// times and then 200 gets its requests at 0, 30, 90 and 390 s of fake
// time (format A's 30 s, 1 min, 5 min, docs/webhooks.md section 5; each
// at most one 5 s scan late); the 4th succeeds: attempts 4, delivered_at
// set.
func batteryRetrySchedule(t *testing.T, e *env) {
	clk := newFakeClock()
	rc := newScriptedReceiver(t, clk, func(n int) int {
		if n < 3 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	h := e.host(t)
	start := clk.Now()
	id := e.queueAt(t, h, rc.srv.URL, 0, start)
	w := e.clockedWorker(clk)
	scans := e.drive(t, w, clk, start, 10*time.Minute, h, nil)
	got := rc.attempts()
	want := []time.Duration{0, 30 * time.Second, 90 * time.Second, 390 * time.Second}
	if len(got) != len(want) {
		t.Fatalf("%d requests, want %d: %+v", len(got), len(want), got)
	}
	var offsets []time.Duration
	for i, a := range got {
		off := a.at.Sub(start)
		offsets = append(offsets, off)
		if off < want[i] || off > want[i]+6*time.Second {
			t.Errorf("request %d at +%v, want +%v (+0…6 s)", i+1, off, want[i])
		}
		if a.id != id || !a.verified || a.t != a.at.Unix() {
			t.Errorf("request %d: %+v", i+1, a)
		}
	}
	d := e.get(t, h, id)
	if d.Status != deliveries.StatusSuccess || d.Attempts != 4 || d.DeliveredAt == nil || d.HTTPStatus == nil || *d.HTTPStatus != 200 {
		t.Fatalf("after the 4th request: status %q attempts %d delivered_at %v", d.Status, d.Attempts, d.DeliveredAt)
	}
	battery.Report(t, "T02", "500×3 then 200: requests at +%v/+%v/+%v/+%v of fake time (%d scans on the 5 s grid, none early), success on the 4th, attempts=%d, delivered_at set (%s)",
		offsets[0], offsets[1], offsets[2], offsets[3], scans, d.Attempts, engineOf(t))
}

// batteryDeadLetterAndConsoleRetry (battery T03, T04): a receiver
// answering 500 forever gets exactly 5 requests (at 0, 30, 90, 390 and
// 2190 s), then the row is dead_letter and the dead-letter count is one
// more; no 6th request in the next 3 h of fake time. A console retry
// (the history service's Retry) makes one more request: the same
// delivery id, a fresh t, verifying with the secret captured at enqueue;
// the row ends success.
func batteryDeadLetterAndConsoleRetry(t *testing.T, e *env) {
	clk := newFakeClock()
	var mu sync.Mutex
	up := false
	rc := newScriptedReceiver(t, clk, func(int) int {
		mu.Lock()
		defer mu.Unlock()
		if up {
			return http.StatusOK
		}
		return http.StatusInternalServerError
	})
	h := e.host(t)
	start := clk.Now()
	id := e.queueAt(t, h, rc.srv.URL, 0, start)
	before, err := e.s.Deliveries.CountQueue(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	obs := &observer{}
	w := e.clockedWorker(clk)
	w.Observer = obs
	e.drive(t, w, clk, start, time.Hour, h, nil)
	deadAt := clk.Now().Sub(start)
	after, err := e.s.Deliveries.CountQueue(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// Three more hours: a scan every 5 min claims nothing.
	idled := idle(t, w, clk, 5*time.Minute, 3*time.Hour)
	got := rc.attempts()
	d := e.get(t, h, id)
	if len(got) != 5 || d.Status != deliveries.StatusDeadLetter || d.Attempts != 5 || d.LastError != "receiver answered 500" {
		t.Fatalf("after 3 h more: %d requests, row %q attempts %d last_error %q; want 5, dead_letter", len(got), d.Status, d.Attempts, d.LastError)
	}
	if after.Dead != before.Dead+1 || obs.count(string(deliveries.StatusDeadLetter)) != 1 {
		t.Errorf("dead letters %d → %d, observed %d; want +1", before.Dead, after.Dead, obs.count(string(deliveries.StatusDeadLetter)))
	}
	if off := got[4].at.Sub(start); off != 2190*time.Second {
		t.Errorf("5th request at +%v, want +36m30s", off)
	}
	battery.Report(t, "T03", "500 forever: exactly %d POSTs (last at +%v), dead_letter at +%v, 0 more in 3 h of fake time (%d scans), dead-letter count %d → %d (%s)",
		len(got), got[4].at.Sub(start), deadAt, idled, before.Dead, after.Dead, engineOf(t))

	// T04: the console's retry.
	mu.Lock()
	up = true
	mu.Unlock()
	clk.Advance(time.Minute)
	svc := deliveries.NewService(e.s.Deliveries, e.owned, w)
	row, err := svc.Retry(t.Context(), e.user, h, id)
	if err != nil || row.Status != deliveries.StatusRetrying || row.Attempts != 5 {
		t.Fatalf("retry: %+v, %v", row, err)
	}
	e.drive(t, w, clk, clk.Now(), time.Minute, h, nil)
	got = rc.attempts()
	if len(got) != 6 {
		t.Fatalf("%d requests after the retry, want 6", len(got))
	}
	r := got[5]
	if r.id != id || !r.verified || r.status != 200 || r.t <= got[4].t || r.t != r.at.Unix() {
		t.Errorf("the retried request: %+v (5th request t=%d)", r, got[4].t)
	}
	d = e.get(t, h, id)
	if d.Status != deliveries.StatusSuccess || d.Attempts != 6 || d.DeliveredAt == nil {
		t.Errorf("after the retry: status %q attempts %d", d.Status, d.Attempts)
	}
	battery.Report(t, "T04", "console retry of the dead_letter row: 1 new POST, same delivery_id, t fresh (+%d s after attempt 5), verifies with the enqueue-time secret; row success, attempts 6 (%s)",
		r.t-got[4].t, engineOf(t))
}

// batterySignedWithTheSecretAtEnqueue (battery T06): a delivery is
// queued, the host's secret then changes twice more, and the receiver
// fails the first 4 attempts; attempt 5, 36 min 30 s later, carries a t
// within 5 s of its sending and verifies with the secret captured at
// enqueue (not the host's current one); the two later deliveries follow
// and the receiver ends holding the last secret.
func batterySignedWithTheSecretAtEnqueue(t *testing.T, e *env) {
	clk := newFakeClock()
	rc := newScriptedReceiver(t, clk, func(n int) int {
		if n < 4 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	h := e.host(t)
	start := clk.Now()
	d1 := e.queueAt(t, h, rc.srv.URL, 0, start)
	d2 := e.queueAt(t, h, rc.srv.URL, 1, start.Add(time.Second))
	d3 := e.queueAt(t, h, rc.srv.URL, 2, start.Add(2*time.Second))
	w := e.clockedWorker(clk)
	e.drive(t, w, clk, start, time.Hour, h, nil)
	got := rc.attempts()
	if len(got) != 7 {
		t.Fatalf("%d requests, want 7: %+v", len(got), got)
	}
	fifth := got[4]
	skew := time.Duration(fifth.t-fifth.at.Unix()) * time.Second
	if fifth.id != d1 || !fifth.verified || fifth.status != 200 || skew < -5*time.Second || skew > 5*time.Second {
		t.Errorf("attempt 5: %+v", fifth)
	}
	for i, a := range got[:4] {
		if a.id != d1 {
			t.Errorf("request %d was %s, want the first delivery", i+1, a.id)
		}
	}
	if got[5].id != d2 || got[6].id != d3 || !got[5].verified || !got[6].verified {
		t.Errorf("later requests: %+v", got[5:])
	}
	rc.mu.Lock()
	held := rc.held
	rc.mu.Unlock()
	if held != secret(3) {
		t.Errorf("receiver holds %s, want the last secret %s", held, secret(3))
	}
	battery.Report(t, "T06", "attempt 5 sent +%v after enqueue, 2 secret changes queued meanwhile: t − send = %v, verifies with the enqueue-time secret; later 2 follow in order, receiver holds the last secret (%s)",
		fifth.at.Sub(start), skew, engineOf(t))
}

// owned is the hub's ownership check of the history routes: the user's
// host, or not_found.
func (e *env) owned(ctx context.Context, userID, hostID string) (string, error) {
	h, err := e.s.Hosts.OwnedHost(ctx, userID, hostID)
	if errors.Is(err, hosts.ErrNotFound) {
		return "", apperr.NotFound("host")
	}
	return h.ID, err
}

// observer counts the worker's recorded attempts by status.
type observer struct {
	mu sync.Mutex
	by map[string]int
}

func (o *observer) DeliveryAttempt(status string, _, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.by == nil {
		o.by = map[string]int{}
	}
	o.by[status]++
}

func (o *observer) count(status string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.by[status]
}

// engineOf is the engine the test runs on: sqlite or postgres.
func engineOf(t *testing.T) string {
	if strings.Contains(t.Name(), "/postgres") {
		return "postgres"
	}
	return "sqlite"
}

// sealedHost creates a host whose secret is secret(0), sealed as the hub
// seals it, with no report URL; it returns the host.
func (e *env) sealedHost(t *testing.T) hosts.Host {
	t.Helper()
	h := hosts.Host{ID: uuid.NewString(), UserID: e.user, Name: "web", BID: e.bids.Add(1), ListenPort: hosts.DefaultListenPort,
		Status: hosts.StatusPending, WebhookFormat: string(webhooks.FormatA), CreatedAt: time.Now()}
	if err := e.s.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: e.kr.Seal([]byte(secret(0)), []byte(h.ID))}, nil); err != nil {
		t.Fatal(err)
	}
	return h
}

// offline is l1config.Agents with every agent offline.
type offline struct{}

func (offline) Online(context.Context, string) (bool, error) { return false, nil }
func (offline) Send(context.Context, string, string, json.RawMessage, time.Duration) (agentproto.Response, error) {
	return agentproto.Response{}, errors.New("offline")
}

// nobody is a Waker nobody listens to: the process died before waking.
type nobody struct{}

func (nobody) Wake() {}

var errCrash = errors.New("process exit injected")

// crashBeforeCommit is an l1config.Store whose unit of work, once the
// change and its delivery are written, ends as a process exit would: the
// transaction never commits.
type crashBeforeCommit struct{ l1config.Store }

func (s crashBeforeCommit) Tx(ctx context.Context, fn func(l1config.Tx) error) error {
	return s.Store.Tx(ctx, func(tx l1config.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errCrash
	})
}

// crashAfterSend is a deliveries.Store whose owner dies after the POST,
// before recording its result: FinishDelivery never reaches the store.
type crashAfterSend struct{ deliveries.Store }

func (crashAfterSend) FinishDelivery(context.Context, string, string, deliveries.Result) error {
	return errCrash
}

// batteryCrashPoints (battery T01, CI size: 10 runs per point): a process
// exit injected at each crash point of an L1 change and its delivery, then
// a restart (a new worker on the same store, its clock past any lease).
// Committed changes equal delivery rows (no orphan row, no change without
// a row); every row ends success; only the exit between a 2xx and its
// recording repeats a request, with the same delivery id.
func batteryCrashPoints(t *testing.T, e *env) {
	const runs = 10
	rc := newReceiver(t)
	who := l1config.Who{Source: webhooks.SourceWeb, Actor: webhooks.Actor{Kind: webhooks.ActorUser, ID: e.user, IP: "203.0.113.7"}}
	// The restarted instance: its clock is past the 60 s lease a dead
	// instance may have left.
	restarted := e.worker("restarted")
	restarted.Now = func() time.Time { return time.Now().Add(deliveries.DefaultLease + time.Second) }
	type tally struct{ changes, rows, orphans, phantoms, success, posts, dupes int }
	points := []string{"after the config UPDATE, before COMMIT", "after COMMIT, before the HTTP response",
		"after claiming, before the POST", "after a 2xx, before recording success"}
	for p, point := range points {
		var got tally
		for range runs {
			h := e.sealedHost(t)
			st := e.s.L1Config
			if p == 0 {
				st = crashBeforeCommit{st}
			}
			svc := l1config.NewService(st, e.kr, offline{}, nobody{}, true, slog.New(slog.DiscardHandler))
			newBID := e.bids.Add(1)
			_, err := svc.Update(t.Context(), e.user, h.ID, who, l1config.Request{BID: newBID, SecretKey: secret(1), URL: rc.url(h.ID)})
			if (p == 0) != errors.Is(err, errCrash) || (p != 0 && err != nil) {
				t.Fatalf("%s: Update: %v", point, err)
			}
			switch p {
			case 2: // a claim commits, then the instance dies
				if _, err := e.s.Deliveries.ClaimDue(t.Context(), "dead", time.Now(), deliveries.DefaultLease, 10); err != nil {
					t.Fatal(err)
				}
			case 3: // the POST is answered 200, then the instance dies
				dying := e.worker("dead")
				dying.Store = crashAfterSend{e.s.Deliveries}
				if n, err := dying.RunOnce(t.Context()); n != 1 || err != nil {
					t.Fatalf("%s: the dying instance claimed %d, %v", point, n, err)
				}
			}
			// The restart.
			if _, err := restarted.RunOnce(t.Context()); err != nil {
				t.Fatal(err)
			}
			now, _, err := e.s.Hosts.HostByID(t.Context(), h.ID)
			if err != nil {
				t.Fatal(err)
			}
			changed := now.BID == newBID
			rows, err := e.s.Deliveries.ListDeliveries(t.Context(), h.ID, deliveries.MaxLimit)
			if err != nil {
				t.Fatal(err)
			}
			if changed {
				got.changes++
			}
			got.rows += len(rows)
			if len(rows) > 0 && !changed {
				got.orphans++
			}
			if changed && len(rows) != 1 {
				got.phantoms++
			}
			for _, d := range rows {
				if d.Status == deliveries.StatusSuccess {
					got.success++
				}
				n := rc.hitsOf(d.ID)
				got.posts += n
				if n > 1 {
					got.dupes += n - 1
				}
			}
		}
		wantChanges, wantDupes := runs, 0
		if p == 0 {
			wantChanges = 0
		}
		if p == 3 {
			wantDupes = runs
		}
		if got.changes != wantChanges || got.rows != got.changes || got.orphans != 0 || got.phantoms != 0 ||
			got.success != got.rows || got.dupes != wantDupes {
			t.Errorf("%s: %+v; want %d changes = rows, all success, %d duplicates", point, got, wantChanges, wantDupes)
			continue
		}
		battery.Report(t, "T01", "exit %s ×%d, restart: %d committed changes = %d rows (0 orphans, 0 phantoms), %d/%d success, %d POSTs, %d duplicates (same delivery_id) (%s)",
			point, runs, got.changes, got.rows, got.success, got.rows, got.posts, got.dupes, engineOf(t))
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.errs) > 0 {
		t.Errorf("receiver: %v", rc.errs)
	}
}

// batteryRedirects (battery T10): a receiver answering 301, 302, 307 or
// 308 with a Location on the same server: each attempt failed with that
// status, the Location never fetched.
func batteryRedirects(t *testing.T, e *env) {
	var mu sync.Mutex
	followed := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var code int
		if _, err := fmt.Sscanf(r.URL.Path, "/r/%d", &code); err != nil {
			mu.Lock()
			followed++
			mu.Unlock()
			return
		}
		http.Redirect(w, r, "/target", code)
	}))
	defer srv.Close()
	codes := []int{301, 302, 307, 308}
	ids := map[int][2]string{}
	for _, c := range codes {
		h := e.host(t)
		ids[c] = [2]string{h, e.queue(t, h, fmt.Sprintf("%s/r/%d", srv.URL, c), 0)}
	}
	w := e.worker("i1")
	w.Scale = 0 // the spec's schedule: no second attempt within the test
	if n, err := w.RunOnce(t.Context()); n != len(codes) || err != nil {
		t.Fatalf("RunOnce: %d, %v", n, err)
	}
	var got []string
	for _, c := range codes {
		d := e.get(t, ids[c][0], ids[c][1])
		if d.Status != deliveries.StatusRetrying || d.Attempts != 1 || d.HTTPStatus == nil || *d.HTTPStatus != c ||
			d.LastError != fmt.Sprintf("receiver answered %d", c) {
			t.Errorf("%d: status %q attempts %d http %v last_error %q", c, d.Status, d.Attempts, d.HTTPStatus, d.LastError)
		}
		got = append(got, d.LastError)
	}
	mu.Lock()
	defer mu.Unlock()
	if followed != 0 {
		t.Errorf("Location fetched %d times", followed)
	}
	battery.Report(t, "T10", "301/302/307/308 → 4 failed attempts (%s), Location fetched %d times (%s)",
		strings.Join(got, ", "), followed, engineOf(t))
}

// batteryNoURL (battery T12): an L1 change on a host without a report
// URL queues one skipped_no_url row and sends nothing.
func batteryNoURL(t *testing.T, e *env) {
	rc := newReceiver(t)
	h := e.sealedHost(t)
	svc := l1config.NewService(e.s.L1Config, e.kr, offline{}, nobody{}, true, slog.New(slog.DiscardHandler))
	who := l1config.Who{Source: webhooks.SourceWeb, Actor: webhooks.Actor{Kind: webhooks.ActorUser, ID: e.user}}
	out, err := svc.Update(t.Context(), e.user, h.ID, who, l1config.Request{BID: e.bids.Add(1), SecretKey: secret(1), URL: ""})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := e.worker("i1").RunOnce(t.Context()); n != 0 || err != nil {
		t.Fatalf("RunOnce claimed %d, %v", n, err)
	}
	rows, err := e.s.Deliveries.ListDeliveries(t.Context(), h.ID, deliveries.MaxLimit)
	if err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	posts := len(rc.hits)
	rc.mu.Unlock()
	if len(rows) != 1 || rows[0].ID != out.DeliveryID || rows[0].Status != deliveries.StatusSkippedNoURL || rows[0].Attempts != 0 || posts != 0 {
		t.Fatalf("rows %+v, posts %d; want one skipped_no_url row and none", rows, posts)
	}
	battery.Report(t, "T12", "change with an empty report_url → %d row %s, %d attempts, %d POSTs (%s)",
		len(rows), rows[0].Status, rows[0].Attempts, posts, engineOf(t))
}

// batteryHistory (battery T13): 60 deliveries of one host; the owner's
// history lists the latest 50, newest first; another tenant asking for
// it, or retrying one of them, gets not_found (404), as for a missing
// host.
func batteryHistory(t *testing.T, e *env) {
	h := e.host(t)
	start := time.Now().Add(-time.Hour)
	var ids []string
	for i := range 60 {
		ids = append(ids, e.queueAt(t, h, "", i, start.Add(time.Duration(i)*time.Second)))
	}
	svc := deliveries.NewService(e.s.Deliveries, e.owned, nil)
	list, err := svc.List(t.Context(), e.user, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 50 {
		t.Fatalf("%d rows, want 50", len(list))
	}
	for i, d := range list {
		if want := ids[59-i]; d.ID != want {
			t.Fatalf("row %d is %s, want %s (newest first)", i, d.ID, want)
		}
	}
	other := uuid.NewString()
	u := accounts.User{ID: other, Email: "bob@example.com", DisplayName: "Bob", Status: accounts.StatusActive, CreatedAt: time.Now()}
	sess := accounts.Session{ID: uuid.NewString(), UserID: other, CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}
	if err := e.s.Accounts.CreateUser(t.Context(), u, "h", sess, []byte(other)); err != nil {
		t.Fatal(err)
	}
	_, listErr := svc.List(t.Context(), other, h, 0)
	_, retryErr := svc.Retry(t.Context(), other, h, ids[0])
	_, missingErr := svc.List(t.Context(), e.user, uuid.NewString(), 0)
	for _, err := range []error{listErr, retryErr, missingErr} {
		if apperr.Code(err) != apperr.CodeNotFound {
			t.Fatalf("another tenant / a missing host: %v, want not_found", err)
		}
	}
	if listErr.Error() != missingErr.Error() {
		t.Errorf("another tenant's host %q differs from a missing one %q", listErr, missingErr)
	}
	battery.Report(t, "T13", "60 deliveries → history of %d, newest first; another tenant's list and retry → %s (404), same as a missing host (%s)",
		len(list), apperr.Code(listErr), engineOf(t))
}
