// Package inproc is the coord.Coord for the embedded single-node hub:
// tickets, counters and presence live in maps in this process and die with
// it, which is fine because coord state may always be lost. Publish fans out
// to this process's subscribers only.
package inproc

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"hostgate/internal/coord"
)

// janitorInterval bounds how long expired keys that nobody reads again keep
// their memory.
const janitorInterval = 30 * time.Second

var (
	errBadTTL = errors.New("ttl must be positive")
	errClosed = errors.New("inproc: closed")
)

var _ coord.Coord = (*Coord)(nil)

// Coord keeps coordination state in memory. Use New; Close stops its
// janitor.
type Coord struct {
	now func() time.Time // injectable so tests control expiry

	mu       sync.Mutex
	tickets  map[string]ticket
	counters map[string]counter
	presence map[string]presence                   // host id → holder
	subs     map[string]map[*subscription]struct{} // channel → subscribers
	closed   bool

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

type ticket struct {
	value   []byte
	expires time.Time
}

type counter struct {
	n       int64
	expires time.Time
}

type presence struct {
	instance string
	expires  time.Time
}

// New returns an empty Coord with its janitor running.
func New() *Coord { return newCoord(time.Now, janitorInterval) }

// NewWithClock returns a Coord whose expiries follow now, so that tests of
// other packages can age tickets and counters without waiting.
func NewWithClock(now func() time.Time) *Coord { return newCoord(now, janitorInterval) }

func newCoord(now func() time.Time, every time.Duration) *Coord {
	c := &Coord{
		now:      now,
		tickets:  map[string]ticket{},
		counters: map[string]counter{},
		presence: map[string]presence{},
		subs:     map[string]map[*subscription]struct{}{},
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	go c.janitor(every)
	return c
}

// PutTicket stores a copy of value under key for ttl.
func (c *Coord) PutTicket(_ context.Context, key string, value []byte, ttl time.Duration) error {
	if ttl <= 0 {
		return fmtErr("put ticket", errBadTTL)
	}
	// A non-nil copy, so the caller's slice cannot reach the stored one and
	// an empty ticket comes back as empty rather than nil.
	v := append([]byte{}, value...)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tickets[key] = ticket{value: v, expires: c.now().Add(ttl)}
	return nil
}

// TakeTicket reads and deletes key under the lock, so at most one caller
// gets it.
func (c *Coord) TakeTicket(_ context.Context, key string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tk, ok := c.tickets[key]
	if !ok {
		return nil, false, nil
	}
	delete(c.tickets, key)
	if !c.now().Before(tk.expires) {
		return nil, false, nil
	}
	// No copy needed: the entry is gone, so the caller holds the only
	// reference.
	return tk.value, true, nil
}

// Incr adds one to the counter at key; a missing or expired counter starts
// a new window.
func (c *Coord) Incr(_ context.Context, key string, window time.Duration) (int64, error) {
	if window <= 0 {
		return 0, fmtErr("incr", errBadTTL)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	ct, ok := c.counters[key]
	if !ok || !now.Before(ct.expires) {
		ct = counter{expires: now.Add(window)}
	}
	ct.n++
	c.counters[key] = ct
	return ct.n, nil
}

// Ping reports an error only after Close.
func (c *Coord) Ping(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	return nil
}

// Name returns "in-process".
func (c *Coord) Name() string { return "in-process" }

// Close stops the janitor and waits for it, and closes every open
// subscription. The maps stay usable, so a late caller during shutdown does
// not crash; Ping reports the Coord as closed and Subscribe refuses.
func (c *Coord) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		for _, set := range c.subs {
			for s := range set {
				close(s.ch)
			}
		}
		clear(c.subs)
		c.mu.Unlock()
		close(c.stop)
	})
	<-c.done
	return nil
}

func (c *Coord) janitor(every time.Duration) {
	defer close(c.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
			c.prune()
		}
	}
}

// prune drops expired keys that readers have not touched since they
// expired.
func (c *Coord) prune() {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	maps.DeleteFunc(c.tickets, func(_ string, tk ticket) bool { return !now.Before(tk.expires) })
	maps.DeleteFunc(c.counters, func(_ string, ct counter) bool { return !now.Before(ct.expires) })
	maps.DeleteFunc(c.presence, func(_ string, p presence) bool { return !now.Before(p.expires) })
}

func fmtErr(op string, err error) error {
	return fmt.Errorf("inproc: %s: %w", op, err)
}
