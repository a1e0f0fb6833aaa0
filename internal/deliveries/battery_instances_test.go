package deliveries_test

import (
	"context"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/battery"
	"hostgate/internal/deliveries"
	"hostgate/internal/eventually"
)

// killable is one instance's view of the store: once killed, it claims
// and records nothing more (the process is gone); until then it notes
// what it claimed, when, and what it recorded.
type killable struct {
	deliveries.Store
	mu       sync.Mutex
	dead     bool
	claimed  map[string]time.Time
	finished map[string]bool
	inFlight map[string]time.Time // at the kill: claimed, not recorded
}

func newKillable(s deliveries.Store) *killable {
	return &killable{Store: s, claimed: map[string]time.Time{}, finished: map[string]bool{}}
}

func (k *killable) ClaimDue(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]deliveries.Delivery, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dead {
		return nil, nil
	}
	batch, err := k.Store.ClaimDue(ctx, owner, now, lease, limit)
	for _, d := range batch {
		if _, again := k.claimed[d.ID]; !again {
			k.claimed[d.ID] = now
		}
	}
	return batch, err
}

func (k *killable) FinishDelivery(ctx context.Context, id, owner string, r deliveries.Result) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dead {
		return errCrash
	}
	err := k.Store.FinishDelivery(ctx, id, owner, r)
	if err == nil {
		k.finished[id] = true
	}
	return err
}

func (k *killable) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dead = true
	k.inFlight = map[string]time.Time{}
	for id, at := range k.claimed {
		if !k.finished[id] {
			k.inFlight[id] = at
		}
	}
}

func (k *killable) isDead() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.dead
}

// killingTransport kills its instance right after the answer to its
// killAt-th request, and sends nothing once the instance is dead.
type killingTransport struct {
	base   http.RoundTripper
	k      *killable
	sent   atomic.Int32
	killAt int32
}

func (t *killingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.k.isDead() {
		return nil, errCrash
	}
	resp, err := t.base.RoundTrip(r)
	if t.sent.Add(1) == t.killAt {
		t.k.kill()
	}
	return resp, err
}

// TestBatteryInstanceKilledMidBatch (battery T08, CI size: 200
// deliveries, lease shortened to 3 s): two instances share one queue;
// one dies right after the answer to its 40th request, with a batch
// claimed. Every delivery succeeds, in each host's order; the only
// repeats are rows that instance held at its death, re-sent (same id) by
// the other only once their lease had expired.
func TestBatteryInstanceKilledMidBatch(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, e *env) {
		t.Parallel()
		const hostsN, each, lease = 40, 5, 3 * time.Second
		rc := newReceiver(t)
		type queued struct{ host, id string }
		var all []queued
		for range hostsN {
			h := e.host(t)
			for i := range each {
				all = append(all, queued{h, e.queue(t, h, rc.url(h), i)})
			}
		}
		a, b := newKillable(e.s.Deliveries), newKillable(e.s.Deliveries)
		for _, inst := range []struct {
			name string
			k    *killable
		}{{"hub-a", a}, {"hub-b", b}} {
			w := e.worker(inst.name)
			w.Store = inst.k
			w.Lease = lease
			w.Batch = 10
			if inst.k == a {
				client := deliveries.NewClient(true)
				client.Transport = &killingTransport{base: client.Transport, k: a, killAt: 40}
				w.Client = client
			}
			start(t, w)
		}
		for _, q := range all {
			eventually.Error(t, settle, "success", e.status(t, q.host, q.id, deliveries.StatusSuccess))
		}
		if !a.isDead() {
			t.Fatal("hub-a was never killed")
		}
		rc.mu.Lock()
		defer rc.mu.Unlock()
		a.mu.Lock()
		defer a.mu.Unlock()
		b.mu.Lock()
		defer b.mu.Unlock()
		dupes := 0
		for _, q := range all {
			n := rc.hits[q.id]
			if n <= 1 {
				continue
			}
			dupes += n - 1
			if _, held := a.inFlight[q.id]; !held || n > 2 {
				t.Errorf("delivery %s received %d times; held by the killed instance: %v", q.id, n, held)
			}
		}
		var waits []time.Duration
		for id, at := range a.inFlight {
			again, ok := b.claimed[id]
			if !ok {
				t.Errorf("delivery %s held at the kill was never claimed by hub-b", id)
				continue
			}
			waits = append(waits, again.Sub(at))
			if again.Before(at.Add(lease - time.Microsecond)) {
				t.Errorf("delivery %s re-claimed %v after the kill's claim, before its %v lease ended", id, again.Sub(at), lease)
			}
		}
		sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
		if len(rc.seen) != hostsN*each || len(rc.errs) > 0 || dupes > len(a.inFlight) || len(a.inFlight) == 0 {
			t.Fatalf("distinct %d of %d, duplicates %d, in flight at the kill %d, receiver problems %v",
				len(rc.seen), hostsN*each, dupes, len(a.inFlight), rc.errs[:min(len(rc.errs), 3)])
		}
		for h, order := range rc.order {
			if len(order) != each {
				t.Errorf("host %s: %d adopted in order, want %d", h, len(order), each)
			}
		}
		battery.Report(t, "T08", "%d deliveries, 2 instances, one killed after its 40th POST holding %d rows: %d/%d delivered in host order, %d duplicates (same ids, all held at the kill), re-claimed %v–%v after the dead claim (lease %v, CI-shortened from 60 s) (%s)",
			hostsN*each, len(a.inFlight), len(rc.seen), hostsN*each, dupes, waits[0].Round(time.Millisecond), waits[len(waits)-1].Round(time.Millisecond), lease, engineOf(t))
	})
}
