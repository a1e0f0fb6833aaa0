package deliveries

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"hostgate/internal/webhooks"
)

// Worker defaults.
const (
	DefaultInterval = 5 * time.Second  // scan period (spec 6.1)
	DefaultLease    = 60 * time.Second // far above Timeout: a lease outlives its attempt
	DefaultBatch    = 50
	DefaultParallel = 8
	// Timeout bounds one attempt: the receiver must answer within 5 s.
	Timeout = 5 * time.Second
)

// Worker sends due deliveries: it claims a batch with a lease, sends each
// (different hosts in parallel, a host's deliveries one at a time and in
// order, which ClaimDue guarantees) and records each result. Several
// Workers, in one hub or in several, may share one Store.
//
// Set the fields, then call Run; Wake may be called at any time.
type Worker struct {
	Store  Store
	Sealer Sealer
	// Instance names this worker as the owner of its leases; it must
	// differ between hub instances.
	Instance string
	// Client sends the requests; nil is NewClient(AllowPrivate).
	Client *http.Client
	// AllowPrivate lets the default client reach private, loopback and
	// link-local addresses (HOSTGATE_WEBHOOK_ALLOW_PRIVATE=1).
	AllowPrivate bool
	// Scale multiplies every delay of the formats' retry schedules; 0
	// means 1 (the spec's schedules). Test-only: tests set e.g. 0.001.
	Scale float64
	// Interval, Lease, Batch and Parallel default to the constants above.
	Interval time.Duration
	Lease    time.Duration
	Batch    int
	Parallel int
	Log      *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Observer, if set, learns each recorded attempt (the hub's metrics).
	Observer Observer

	once   sync.Once
	wake   chan struct{}
	client *http.Client
}

func (w *Worker) init() {
	w.once.Do(func() {
		w.wake = make(chan struct{}, 1)
		w.client = w.Client
		if w.client == nil {
			w.client = NewClient(w.AllowPrivate)
		}
		if w.Log == nil {
			w.Log = slog.New(slog.DiscardHandler)
		}
		if w.Now == nil {
			w.Now = time.Now
		}
	})
}

// Wake makes Run scan at once, for a caller that has just committed a
// delivery. It never blocks.
func (w *Worker) Wake() {
	w.init()
	select {
	case w.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Run sends deliveries until ctx ends, and returns once its sends have
// ended. It scans every Interval and when woken, at once again after a
// scan that filled its batch, and whenever a send ends (a success may
// have released a host's next delivery). A scan claims no more rows than
// there are free send slots (Parallel), and does not wait for the sends
// it starts: a receiver that hangs for its whole 5 s holds one slot, not
// the deliveries of every other host (issue 27 item 4).
func (w *Worker) Run(ctx context.Context) {
	w.init()
	parallel := orDefault(w.Parallel, DefaultParallel)
	slots := make(chan struct{}, parallel)
	var sends sync.WaitGroup
	defer sends.Wait()
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-w.wake:
		}
		next := orDefault(w.Interval, DefaultInterval)
		if free := parallel - len(slots); free > 0 {
			limit := min(orDefault(w.Batch, DefaultBatch), free)
			batch, err := w.Store.ClaimDue(ctx, w.Instance, w.Now(), orDefault(w.Lease, DefaultLease), limit)
			if err != nil && ctx.Err() == nil {
				w.Log.Error("webhook deliveries: scan", "err", err)
			}
			// A batch holds at most one delivery per host, and no row of
			// a host with a send in flight (its row is leased), so the
			// sends are independent. Only this loop takes slots, and
			// the batch fits in the free ones: this never blocks.
			for _, d := range batch {
				slots <- struct{}{}
				sends.Go(func() {
					defer func() { <-slots; w.Wake() }()
					w.deliver(ctx, d)
				})
			}
			if len(batch) == limit {
				next = 0 // more may be due; otherwise the sends' ends wake the next scan
			}
		}
		t.Reset(next)
	}
}

// RunOnce claims one batch, sends it and records the results; it returns
// how many deliveries it claimed.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	w.init()
	batch, err := w.Store.ClaimDue(ctx, w.Instance, w.Now(), orDefault(w.Lease, DefaultLease), orDefault(w.Batch, DefaultBatch))
	if err != nil || len(batch) == 0 {
		return 0, err
	}
	// A batch holds at most one delivery per host, so its sends are
	// independent; the semaphore bounds them.
	sem := make(chan struct{}, orDefault(w.Parallel, DefaultParallel))
	var wg sync.WaitGroup
	for _, d := range batch {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			w.deliver(ctx, d)
		})
	}
	wg.Wait()
	return len(batch), nil
}

// Observer learns each recorded attempt: the delivery's status after it
// (success, retrying, dead_letter), how long the attempt took, and how
// long since the delivery was queued.
type Observer interface {
	DeliveryAttempt(status string, took, sinceEnqueued time.Duration)
}

// deliver makes one attempt at d and records it.
func (w *Worker) deliver(ctx context.Context, d Delivery) {
	start := w.Now()
	status, why, cause := w.send(ctx, d)
	sched, err := webhooks.ScheduleFor(d.Format)
	if err != nil {
		sched = webhooks.Schedule{} // dead at once: never retry a bad row forever
	}
	if w.Scale != 0 {
		sched = sched.Scaled(w.Scale)
	}
	r := Outcome(d, sched, w.Now(), status, why)
	// Record even when ctx has just ended, so the attempt is not lost.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), Timeout)
	defer cancel()
	if err := w.Store.FinishDelivery(fctx, d.ID, w.Instance, r); err != nil {
		w.Log.Warn("webhook delivery: record attempt", "delivery_id", d.ID, "err", err)
		return
	}
	if w.Observer != nil {
		now := w.Now()
		w.Observer.DeliveryAttempt(string(r.Status), now.Sub(start), now.Sub(d.CreatedAt))
	}
	attrs := []any{"delivery_id", d.ID, "host_id", d.HostID, "user_id", d.UserID,
		"status", r.Status, "http_status", status, "attempt", d.Attempts + 1, "err", r.Error}
	if cause != nil {
		// The detail the tenant is not shown (last_error): resolver,
		// resolved and internal addresses, the error chain.
		attrs = append(attrs, "cause", logDetail(cause))
	}
	w.Log.Info("webhook delivery attempt", attrs...)
}

// send posts d once: the receiver's status code, and why it failed ("" on
// a 2xx answer), in the words of Reason, which the tenant sees; cause is
// the error itself, for the hub's log. Neither holds a secret or the
// target URL.
func (w *Worker) send(ctx context.Context, d Delivery) (status int, why string, cause error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, why := w.request(ctx, d)
	if req == nil {
		return 0, why, nil
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, Reason(err), err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // lets the connection be reused
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Sprintf("receiver answered %d", resp.StatusCode), nil
	}
	return resp.StatusCode, "", nil
}

// request builds the attempt at d: a host's L1 change in its format, or
// a user-level event (no host) signed with the user's secret. When it
// cannot, it says why.
func (w *Worker) request(ctx context.Context, d Delivery) (*http.Request, string) {
	if d.HostID == "" {
		secret, err := d.userSecret(w.Sealer)
		if err != nil {
			w.Log.Error("webhook delivery: open secret", "delivery_id", d.ID, "err", err)
			return nil, "cannot open the signing secret"
		}
		req, err := webhooks.NewUserRequest(ctx, d.TargetURL, d.EventType, d.ID, d.Payload, secret, w.Now())
		if err != nil {
			return nil, "cannot build the request"
		}
		return req, ""
	}
	ev, err := d.Event(w.Sealer)
	if err != nil {
		w.Log.Error("webhook delivery: rebuild event", "delivery_id", d.ID, "err", err)
		return nil, "cannot rebuild the event"
	}
	req, err := webhooks.NewRequest(ctx, d.Format, ev, w.Now())
	if err != nil {
		return nil, "cannot build the request"
	}
	return req, ""
}

// orDefault is v, or def when v is not positive.
func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
