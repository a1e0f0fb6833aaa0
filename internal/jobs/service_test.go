package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/accounts"
	"hostgate/internal/agentproto"
	"hostgate/internal/audit"
	"hostgate/internal/billing"
	"hostgate/internal/deliveries"
	"hostgate/internal/dispatch"
	"hostgate/internal/eventually"
	"hostgate/internal/hosts"
	"hostgate/internal/jobs"
	"hostgate/internal/paging"
	"hostgate/internal/pgtest"
	"hostgate/internal/store"
	"hostgate/internal/webhooks"
)

// world is one store (either engine) with a user and hosts, and fakes of
// what the jobs reach beyond it.
type world struct {
	st    store.Store
	user  string
	hosts []string
	disp  *fakeDispatch
}

func engines(t *testing.T, f func(t *testing.T, w *world)) {
	for _, pg := range []bool{false, true} {
		t.Run(map[bool]string{false: "sqlite", true: "postgres"}[pg], func(t *testing.T) {
			t.Parallel()
			url := ""
			if pg {
				url = pgtest.NewDatabase(t)
			}
			st, err := store.Open(t.Context(), url, t.TempDir(), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			w := &world{st: st, disp: &fakeDispatch{online: map[string]bool{}}}
			u := accounts.User{ID: uuid.NewString(), Email: uuid.NewString() + "@example.com", DisplayName: "u", Status: accounts.StatusActive, CreatedAt: time.Now()}
			if err := st.Accounts.CreateUser(t.Context(), u, "hash", accounts.Session{ID: uuid.NewString(), UserID: u.ID,
				CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}, []byte(uuid.NewString())); err != nil {
				t.Fatal(err)
			}
			w.user = u.ID
			for i := range 4 {
				h := hosts.Host{ID: uuid.NewString(), UserID: u.ID, Name: fmt.Sprint("h", i), BID: time.Now().UnixNano()>>8 + int64(i)<<20,
					ListenPort: hosts.DefaultListenPort, Status: hosts.StatusPending, CreatedAt: time.Now(), WebhookFormat: hosts.DefaultWebhookFormat}
				if err := st.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: []byte("s")}, nil); err != nil {
					t.Fatal(err)
				}
				w.hosts = append(w.hosts, h.ID)
				w.disp.online[h.ID] = true
			}
			f(t, w)
		})
	}
}

func (w *world) fund(t *testing.T, units billing.Units) {
	t.Helper()
	_, err := billing.NewLedger(w.st.Billing).AdjustBalance(t.Context(), billing.Adjustment{EventID: uuid.NewString(), UserID: w.user,
		Units: units, Reason: "test", At: time.Now(), Audit: audit.Actor{AdminID: "a", Role: "owner"}.Entry(audit.ActionUserBalanceAdjust, "user", w.user)})
	if err != nil {
		t.Fatal(err)
	}
}

func (w *world) balance(t *testing.T) billing.Units {
	b, err := w.st.Billing.Balance(t.Context(), w.user)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeDispatch answers every command OK as a shell that printed "hi",
// counting sends and the most at once; hang makes sends wait for their
// context instead (a hub that dies mid-run).
type fakeDispatch struct {
	mu         sync.Mutex
	online     map[string]bool
	sends, now int
	most       int
	hang       atomic.Bool
	delay      time.Duration
	perHost    map[string]int
}

func (d *fakeDispatch) OnlineMany(_ context.Context, ids []string) (map[string]bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = d.online[id]
	}
	return out, nil
}

func (d *fakeDispatch) Send(ctx context.Context, hostID, _ string, _ json.RawMessage, _ time.Duration) (agentproto.Response, error) {
	d.mu.Lock()
	if !d.online[hostID] {
		d.mu.Unlock()
		return agentproto.Response{}, fmt.Errorf("%s offline", dispatch.CodeHostOffline)
	}
	d.sends++
	if d.perHost == nil {
		d.perHost = map[string]int{}
	}
	d.perHost[hostID]++
	d.now++
	d.most = max(d.most, d.now)
	d.mu.Unlock()
	defer func() { d.mu.Lock(); d.now--; d.mu.Unlock() }()
	if d.hang.Load() {
		<-ctx.Done()
		return agentproto.Response{}, ctx.Err()
	}
	select {
	case <-time.After(d.delay):
	case <-ctx.Done():
		return agentproto.Response{}, ctx.Err()
	}
	res, _ := json.Marshal(agentproto.ShellResult{Stdout: "hi\n"})
	return agentproto.Response{OK: true, Result: res}, nil
}

func (d *fakeDispatch) counts() (sends, most int, perHost map[string]int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sends, d.most, d.perHost
}

type ids struct{}

func (ids) Select(_ context.Context, _ string, t jobs.Target, _ int) ([]string, error) {
	return t.HostIDs, nil
}

type price struct{}

func (price) PriceNow(context.Context, string) (billing.Units, error) { return 5000, nil }

// notifier builds a delivery the way deliveries.UserEvent will (a stand-in
// until it is merged): the job's first host carries it for now.
type notifier struct {
	host string
	got  atomic.Int32
}

func (n *notifier) CheckSecret(context.Context, string) error { return nil }

func (n *notifier) JobFinished(_ context.Context, userID, url string, v jobs.JobView, now time.Time) (deliveries.Delivery, error) {
	n.got.Add(1)
	body, _ := json.Marshal(map[string]any{"type": "job.finished", "data": v})
	return deliveries.Delivery{ID: uuid.NewString(), HostID: n.host, UserID: userID, EventType: "job.finished", Format: webhooks.FormatA,
		Status: deliveries.StatusPending, TargetURL: url, Payload: body, SealedSecrets: []byte("sealed"), NextAttemptAt: now, CreatedAt: now}, nil
}

func (w *world) service(instance string, n jobs.Notifier, clock func() time.Time) *jobs.Service {
	return w.serviceDraining(instance, n, clock, 200*time.Millisecond)
}

func (w *world) serviceDraining(instance string, n jobs.Notifier, clock func() time.Time, drain time.Duration) *jobs.Service {
	return jobs.NewService(jobs.Config{Store: w.st.Jobs, Targets: ids{}, Dispatch: w.disp, Pricer: price{}, Notifier: n,
		Instance: instance, Tick: 10 * time.Millisecond, Lease: 300 * time.Millisecond, Now: clock, Drain: drain,
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
}

func run(t *testing.T, s *jobs.Service) context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = s.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return func() { cancel(); wg.Wait() }
}

func shell() jobs.Operation {
	return jobs.Operation{Controls: agentproto.CtlExecShell, Path: "/bin/sh", Data: json.RawMessage(`{"args":"-c true"}`)}
}

func waitFinished(t *testing.T, s *jobs.Service, owner, id string) jobs.Job {
	t.Helper()
	var j jobs.Job
	eventually.True(t, 20*time.Second, "job finished", func() bool {
		var err error
		j, err = s.Get(t.Context(), owner, id)
		return err == nil && j.FinishedAt != nil
	})
	return j
}

// TestConcurrencyAcrossInstances: two drivers on one store keep a job's
// runs at its concurrency, send each run once and charge each once.
func TestConcurrencyAcrossInstances(t *testing.T) {
	engines(t, func(t *testing.T, w *world) {
		w.fund(t, 100000)
		w.disp.delay = 30 * time.Millisecond
		a, b := w.service("a", nil, nil), w.service("b", nil, nil)
		run(t, a)
		run(t, b)
		c, err := a.Create(t.Context(), jobs.Creator{UserID: w.user}, jobs.Request{Target: jobs.Target{HostIDs: w.hosts}, Operation: shell(), Concurrency: 2})
		if err != nil {
			t.Fatal(err)
		}
		j := waitFinished(t, b, w.user, c.Job.ID)
		sends, most, per := w.disp.counts()
		if j.Totals.Succeeded != 4 || sends != 4 || most > 2 || j.Charged != 20000 || w.balance(t) != 80000 {
			t.Fatalf("job %+v: %d sends, %d at once, balance %d", j.Totals, sends, most, w.balance(t))
		}
		for h, n := range per {
			if n != 1 {
				t.Fatalf("host %s sent %d times", h, n)
			}
		}
	})
}

// TestInsufficientBalanceStops: the run the balance does not cover and
// every queued one end skipped insufficient_balance; only the runs that
// ran are charged.
func TestInsufficientBalanceStops(t *testing.T) {
	engines(t, func(t *testing.T, w *world) {
		w.fund(t, 12000) // two runs of 5 tokens
		s := w.service("a", nil, nil)
		run(t, s)
		c, err := s.Create(t.Context(), jobs.Creator{UserID: w.user}, jobs.Request{Target: jobs.Target{HostIDs: w.hosts}, Operation: shell(), Concurrency: 1})
		if err != nil {
			t.Fatal(err)
		}
		j := waitFinished(t, s, w.user, c.Job.ID)
		if j.Totals.Succeeded != 2 || j.Totals.Skipped != 2 || j.StopReason != jobs.StopInsufficientBalance || j.Charged != 10000 || w.balance(t) != 2000 {
			t.Fatalf("job %+v stop %q charged %d balance %d", j.Totals, j.StopReason, j.Charged, w.balance(t))
		}
		res, _ := s.Results(t.Context(), w.user, j.ID, jobs.RunSkipped, paging.Page{Limit: 10})
		for _, r := range res.Items {
			if r.Error != jobs.ErrInsufficient || r.Charged != 0 {
				t.Fatalf("skipped run %+v", r)
			}
		}
	})
}

// TestInterruptedNeverResent: a driver that dies mid-run leaves its run
// running and charged; another instance's sweeper ends it failed
// interrupted after the deadline and never sends it again.
func TestInterruptedNeverResent(t *testing.T) {
	engines(t, func(t *testing.T, w *world) {
		w.fund(t, 100000)
		var skew atomic.Int64
		clock := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
		w.disp.hang.Store(true)
		a := w.service("a", nil, clock)
		stopA := run(t, a)
		c, err := a.Create(t.Context(), jobs.Creator{UserID: w.user}, jobs.Request{Target: jobs.Target{HostIDs: w.hosts[:1]}, Operation: shell()})
		if err != nil {
			t.Fatal(err)
		}
		eventually.True(t, 10*time.Second, "run sent", func() bool { n, _, _ := w.disp.counts(); return n == 1 })
		stopA() // the hub dies with the run in flight
		w.disp.hang.Store(false)
		b := w.service("b", nil, clock)
		run(t, b)
		skew.Store(int64(2 * time.Hour)) // past the run's deadline and the grace
		j := waitFinished(t, b, w.user, c.Job.ID)
		res, _ := b.Results(t.Context(), w.user, j.ID, "", paging.Page{Limit: 10})
		if sends, _, _ := w.disp.counts(); sends != 1 || j.Totals.Failed != 1 || res.Items[0].Error != jobs.ErrInterrupted ||
			res.Items[0].Charged != 5000 || w.balance(t) != 95000 {
			t.Fatalf("%d sends, job %+v, run %+v, balance %d", sends, j.Totals, res.Items[0], w.balance(t))
		}
	})
}

// TestStopDrainsRunsInFlight: an instance told to stop while a run is
// out claims nothing more, waits for the run's answer and records it, so a
// rolling restart ends the run succeeded, not interrupted; the queued runs
// stay queued for another instance, which finishes the job.
func TestStopDrainsRunsInFlight(t *testing.T) {
	engines(t, func(t *testing.T, w *world) {
		w.fund(t, 100000)
		w.disp.delay = 700 * time.Millisecond
		a := w.serviceDraining("a", nil, nil, 10*time.Second)
		stopA := run(t, a)
		c, err := a.Create(t.Context(), jobs.Creator{UserID: w.user}, jobs.Request{Target: jobs.Target{HostIDs: w.hosts[:2]}, Operation: shell(), Concurrency: 1})
		if err != nil {
			t.Fatal(err)
		}
		eventually.True(t, 10*time.Second, "first run sent", func() bool { n, _, _ := w.disp.counts(); return n == 1 })
		stopA()
		j, err := a.Get(t.Context(), w.user, c.Job.ID)
		if err != nil {
			t.Fatal(err)
		}
		if sends, _, _ := w.disp.counts(); sends != 1 || j.Totals.Succeeded != 1 || j.Totals.Running != 0 || j.Totals.Queued != 1 {
			t.Fatalf("after the stop: %d sends, totals %+v; want the run in flight succeeded and the other still queued", sends, j.Totals)
		}
		w.disp.delay = 0
		run(t, w.service("b", nil, nil))
		j = waitFinished(t, a, w.user, c.Job.ID)
		if sends, _, per := w.disp.counts(); sends != 2 || j.Totals.Succeeded != 2 || j.Charged != 10000 || per[w.hosts[0]] != 1 || per[w.hosts[1]] != 1 {
			t.Fatalf("%d sends %v, job %+v charged %d", sends, per, j.Totals, j.Charged)
		}
	})
}

// TestNotifyQueuedWithTheEnd: a job with a notify_url queues one
// job.finished delivery in the unit of work that ends it.
func TestNotifyQueuedWithTheEnd(t *testing.T) {
	engines(t, func(t *testing.T, w *world) {
		w.fund(t, 100000)
		n := &notifier{host: w.hosts[0]}
		s := w.service("a", n, nil)
		run(t, s)
		c, err := s.Create(t.Context(), jobs.Creator{UserID: w.user}, jobs.Request{Target: jobs.Target{HostIDs: w.hosts[:2]}, Operation: shell(),
			NotifyURL: "https://example.com/hook"})
		if err != nil {
			t.Fatal(err)
		}
		waitFinished(t, s, w.user, c.Job.ID)
		ds, err := w.st.Deliveries.ListDeliveries(t.Context(), w.hosts[0], 10)
		if err != nil {
			t.Fatal(err)
		}
		if n.got.Load() != 1 || len(ds) != 1 || ds[0].EventType != "job.finished" || ds[0].TargetURL != "https://example.com/hook" {
			t.Fatalf("notifier called %d times, deliveries %+v", n.got.Load(), ds)
		}
		var body struct {
			Data jobs.JobView `json:"data"`
		}
		if err := json.Unmarshal(ds[0].Payload, &body); err != nil || body.Data.ID != c.Job.ID || body.Data.FinishedAt == nil || body.Data.Totals.Succeeded != 2 {
			t.Fatalf("payload %s (%v)", ds[0].Payload, err)
		}
	})
}

// countingStore counts WakeHost calls.
type countingStore struct {
	jobs.Store
	wakes atomic.Int32
}

func (c *countingStore) WakeHost(ctx context.Context, hostID string) (int, error) {
	c.wakes.Add(1)
	return c.Store.WakeHost(ctx, hostID)
}

// TestHostConnectedFreeWhenNothingWaits: a reconnecting fleet costs no
// store query while no run waits; a waiting run is woken by its host's
// connection and runs.
func TestHostConnectedFreeWhenNothingWaits(t *testing.T) {
	engines(t, func(t *testing.T, w *world) {
		w.fund(t, 100000)
		cs := &countingStore{Store: w.st.Jobs}
		s := jobs.NewService(jobs.Config{Store: cs, Targets: ids{}, Dispatch: w.disp, Pricer: price{}, Instance: "a",
			Tick: 10 * time.Millisecond, Log: slog.New(slog.DiscardHandler)})
		run(t, s)
		// After the first tick the flag knows nothing waits.
		eventually.True(t, 5*time.Second, "first tick", func() bool {
			s.HostConnected(t.Context(), "x")
			before := cs.wakes.Load()
			time.Sleep(30 * time.Millisecond)
			for range 1000 {
				s.HostConnected(t.Context(), "x")
			}
			return cs.wakes.Load() == before
		})
		w.disp.mu.Lock()
		w.disp.online[w.hosts[0]] = false
		w.disp.mu.Unlock()
		c, err := s.Create(t.Context(), jobs.Creator{UserID: w.user}, jobs.Request{Target: jobs.Target{HostIDs: w.hosts[:1]}, Operation: shell(),
			Offline: jobs.OfflineQueue})
		if err != nil {
			t.Fatal(err)
		}
		eventually.True(t, 5*time.Second, "run waits", func() bool {
			ok, _ := w.st.Jobs.AnyWaiting(t.Context())
			return ok
		})
		w.disp.mu.Lock()
		w.disp.online[w.hosts[0]] = true
		w.disp.mu.Unlock()
		s.HostConnected(t.Context(), w.hosts[0])
		j := waitFinished(t, s, w.user, c.Job.ID)
		if j.Totals.Succeeded != 1 || cs.wakes.Load() == 0 {
			t.Fatalf("job %+v, wakes %d", j.Totals, cs.wakes.Load())
		}
	})
}

// TestScheduled: a schedule's job is checked without its target and
// started for its owner with the schedule's id.
func TestScheduled(t *testing.T) {
	engines(t, func(t *testing.T, w *world) {
		w.fund(t, 100000)
		s := w.service("a", nil, nil)
		run(t, s)
		ctx := t.Context()
		if err := s.ValidateScheduled(ctx, w.user, json.RawMessage(`{"target":{"tags":["env=prod"]},"operation":{"controls":8192,"path":"/bin/sh","data":{"args":"-c true"}}}`)); err != nil {
			t.Fatalf("valid job: %v", err)
		}
		for raw, code := range map[string]string{
			`{"target":{"tags":["x"]},"operation":{"controls":0}}`:                                         "invalid_body",
			`{"target":{"tags":["x"]},"operation":{"controls":1,"path":"/"},"notify_url":"https://e.com"}`: jobs.CodeWebhookSecretMissing,
			`{"target":{},"operation":{"controls":1,"path":"/"}}`:                                          "invalid_body",
		} {
			if err := s.ValidateScheduled(ctx, w.user, json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), code) {
				t.Errorf("%s: %v, want %s", raw, err, code)
			}
		}
		id, err := s.StartScheduled(ctx, w.user, "sched-1", json.RawMessage(`{"target":{"host_ids":["`+w.hosts[0]+`"]},"operation":{"controls":8192,"path":"/bin/sh","data":{"args":"-c true"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		j := waitFinished(t, s, w.user, id)
		if v := j.View(); v.ScheduleID == nil || *v.ScheduleID != "sched-1" || j.Totals.Succeeded != 1 || len(v.Target.HostIDs) != 1 {
			t.Fatalf("scheduled job %+v", v)
		}
	})
}
