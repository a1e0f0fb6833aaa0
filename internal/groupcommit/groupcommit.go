// Package groupcommit runs work that many goroutines submit in batches:
// each caller waits for the batch that holds its item, and the items that
// arrive while one batch runs share the next. A lone item runs at once,
// never delayed to wait for company; under load, one round trip or commit
// serves many callers.
package groupcommit

import (
	"errors"
	"sync"
)

// Batcher batches items of type T whose outcomes are of type R. Its zero
// value is not usable: make it with New.
type Batcher[T, R any] struct {
	run func(items []T) ([]R, error)
	max int

	mu      sync.Mutex
	queue   []*pending[T, R]
	running bool
}

type pending[T, R any] struct {
	item T
	res  R
	err  error
	done chan struct{}
}

// New returns a batcher that hands run batches of at most max items (no
// bound when max < 1), one batch at a time. run returns one outcome per
// item, in order, or an error that becomes every item's.
func New[T, R any](max int, run func(items []T) ([]R, error)) *Batcher[T, R] {
	return &Batcher[T, R]{run: run, max: max}
}

// Do queues item and waits for the outcome of the batch that holds it.
// It does not give up early: the batch may already have done the work,
// and the caller must learn whether it did, so run must bound itself.
func (b *Batcher[T, R]) Do(item T) (R, error) {
	p := &pending[T, R]{item: item, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, p)
	lead := !b.running
	b.running = true
	b.mu.Unlock()
	if lead {
		// The queue was idle: this caller runs the first batch (its own
		// item and whatever arrived meanwhile) itself, with no goroutine
		// to start and wake, and hands what arrives during it to drain.
		func() {
			defer b.handOff() // even if run panics
			b.runNext()
		}()
	}
	<-p.done
	return p.res, p.err
}

// runNext runs the next batch of at most max queued items.
func (b *Batcher[T, R]) runNext() {
	b.mu.Lock()
	n := len(b.queue)
	if b.max > 0 {
		n = min(n, b.max)
	}
	batch := b.queue[:n:n]
	b.queue = b.queue[n:]
	b.mu.Unlock()
	b.runBatch(batch)
}

// handOff ends a leader's turn: items queued during its batch go to a
// drain goroutine, or the batcher is idle again.
func (b *Batcher[T, R]) handOff() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) == 0 {
		b.queue, b.running = nil, false
		return
	}
	go b.drain()
}

// Waiting reports how many items wait for a batch to start.
func (b *Batcher[T, R]) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue)
}

// drain runs batches until the queue is empty, on a goroutine that exists
// only while items wait.
func (b *Batcher[T, R]) drain() {
	for {
		b.mu.Lock()
		n := len(b.queue)
		if b.max > 0 {
			n = min(n, b.max)
		}
		if n == 0 {
			b.queue, b.running = nil, false
			b.mu.Unlock()
			return
		}
		batch := b.queue[:n:n]
		b.queue = b.queue[n:]
		b.mu.Unlock()
		b.runBatch(batch)
	}
}

// errPanicked is the outcome of the items of a batch whose run panicked.
var errPanicked = errors.New("groupcommit: the batch's run panicked")

func (b *Batcher[T, R]) runBatch(batch []*pending[T, R]) {
	answered := false
	defer func() {
		if !answered { // run panicked: no caller of the batch waits forever
			for _, p := range batch {
				p.err = errPanicked
				close(p.done)
			}
		}
	}()
	items := make([]T, len(batch))
	for i, p := range batch {
		items[i] = p.item
	}
	results, err := b.run(items)
	if err == nil && len(results) != len(batch) {
		panic("groupcommit: run returned a result count other than its items'")
	}
	answered = true
	for i, p := range batch {
		if err != nil {
			p.err = err
		} else {
			p.res = results[i]
		}
		close(p.done)
	}
}
