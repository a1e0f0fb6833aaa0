package sysops

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// errStillStuck: an earlier call with the same key timed out and has not
// returned yet, so this one is not started.
var errStillStuck = errors.New("an earlier call has not returned yet")

// guard runs calls that can block in the kernel for good (statfs on a
// hung network mount, a volume query on a disconnected network drive)
// with a time limit. A call that misses its limit is left running, since
// it cannot be interrupted, and later calls with the same key are skipped
// until it returns, so that repeated requests do not pile up blocked
// goroutines.
type guard struct {
	mu    sync.Mutex
	stuck map[string]*guardCall
}

// guardCall is one run; done is set, under the guard's mutex, when fn
// has returned.
type guardCall struct{ done bool }

// diskGuard guards the disk listing and usage calls of the whole process.
var diskGuard = &guard{}

// guarded runs fn under g with key, waiting at most limit (and no longer
// than ctx).
func guarded[T any](ctx context.Context, g *guard, key string, limit time.Duration, fn func() (T, error)) (T, error) {
	var zero T
	c, err := g.start(key)
	if err != nil {
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn()
		g.finish(key, c)
		ch <- result{v, err}
	}()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-t.C:
		g.abandon(key, c)
		return zero, fmt.Errorf("%s: no answer within %v", key, limit)
	case <-ctx.Done():
		g.abandon(key, c)
		return zero, ctx.Err()
	}
}

func (g *guard) start(key string) (*guardCall, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.stuck[key]; ok {
		return nil, fmt.Errorf("%s: %w", key, errStillStuck)
	}
	return &guardCall{}, nil
}

// abandon marks key stuck unless c has returned meanwhile.
func (g *guard) abandon(key string, c *guardCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.done {
		return
	}
	if g.stuck == nil {
		g.stuck = map[string]*guardCall{}
	}
	g.stuck[key] = c
}

// finish records that c returned and frees key if c held it.
func (g *guard) finish(key string, c *guardCall) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c.done = true
	if g.stuck[key] == c {
		delete(g.stuck, key)
	}
}
