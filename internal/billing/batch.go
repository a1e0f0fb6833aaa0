package billing

import (
	"context"
	"sync"
	"time"
)

// Charges are written in batches: every call's charge waits for the
// transaction that holds it, but calls that arrive while one transaction
// commits share the next. All charges of one user take that user's
// balance row, so one transaction each would queue them behind each
// other's commit (about 1,600 a second on PostgreSQL here, whatever the
// concurrency); a batch pays one commit for all of them
// (docs/performance.md). A lone call is written at once, never delayed.
const (
	maxBatch     = 128
	batchTimeout = 15 * time.Second
)

// batcher runs queued charges in batches on a goroutine that exists only
// while charges are waiting.
type batcher struct {
	store   Store
	mu      sync.Mutex
	queue   []*pendingCharge
	running bool
}

type pendingCharge struct {
	c    Charge
	res  ChargeResult
	err  error
	done chan struct{}
}

// charge queues c and waits for the batch that holds it to commit or
// fail. It waits even when ctx ends: the charge may already be committed,
// and the caller must learn whether it was.
func (b *batcher) charge(c Charge) (ChargeResult, error) {
	p := &pendingCharge{c: c, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, p)
	start := !b.running
	b.running = true
	b.mu.Unlock()
	if start {
		go b.run()
	}
	<-p.done
	return p.res, p.err
}

// run writes batches until the queue is empty.
func (b *batcher) run() {
	for {
		b.mu.Lock()
		n := min(len(b.queue), maxBatch)
		if n == 0 {
			b.queue, b.running = nil, false
			b.mu.Unlock()
			return
		}
		batch := b.queue[:n:n]
		b.queue = b.queue[n:]
		b.mu.Unlock()
		b.write(batch)
	}
}

func (b *batcher) write(batch []*pendingCharge) {
	cs := make([]Charge, len(batch))
	for i, p := range batch {
		cs[i] = p.c
	}
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	results, err := b.store.ChargeCalls(ctx, cs)
	cancel()
	for i, p := range batch {
		if err != nil {
			p.err = err
		} else {
			p.res = results[i]
		}
		close(p.done)
	}
}
