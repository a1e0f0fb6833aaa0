package l1

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newTestNonces(limit int) (*MemoryNonces, *fakeClock) {
	clock := &fakeClock{t: testNow}
	m := NewMemoryNonces(limit)
	m.now = clock.now
	return m, clock
}

func TestCheckReplay(t *testing.T) {
	ctx := context.Background()
	m, clock := newTestNonces(100)
	r := shellRequest()
	if err := CheckReplay(ctx, m, "host-1", r); err != nil {
		t.Fatalf("first use: %v", err)
	}
	if err := CheckReplay(ctx, m, "host-1", r); !errors.Is(err, ErrReplayed) {
		t.Fatalf("second use: err = %v, want ErrReplayed", err)
	}
	if err := CheckReplay(ctx, m, "host-2", r); err != nil {
		t.Fatalf("same nonce, other host: %v", err)
	}
	// Still remembered at the last moment the request's ts is acceptable.
	clock.advance(ReplayTTL - time.Second)
	if err := CheckReplay(ctx, m, "host-1", r); !errors.Is(err, ErrReplayed) {
		t.Fatalf("just inside ReplayTTL: err = %v, want ErrReplayed", err)
	}
	clock.advance(time.Second)
	if err := CheckReplay(ctx, m, "host-1", r); err != nil {
		t.Fatalf("after ReplayTTL: %v", err)
	}
}

// TestReplayTTLCoversClockWindow: a request accepted at the earliest moment
// (ts+MaxSkew ahead of the receiver) is still remembered at the latest.
func TestReplayTTLCoversClockWindow(t *testing.T) {
	firstAccept := testNow.Add(-MaxSkew)
	lastAccept := testNow.Add(MaxSkew)
	if firstAccept.Add(ReplayTTL).Before(lastAccept) {
		t.Fatalf("ReplayTTL %v is shorter than the acceptance window", ReplayTTL)
	}
}

func TestMemoryNoncesFullRefuses(t *testing.T) {
	ctx := context.Background()
	m, clock := newTestNonces(3)
	for i := range 3 {
		if ok, err := m.Add(ctx, fmt.Sprint(i), time.Minute); !ok || err != nil {
			t.Fatalf("Add(%d) = %v, %v", i, ok, err)
		}
	}
	if ok, err := m.Add(ctx, "x", time.Minute); ok || !errors.Is(err, ErrNoncesFull) {
		t.Fatalf("Add when full = %v, %v; want ErrNoncesFull", ok, err)
	}
	if ok, _ := m.Add(ctx, "0", time.Minute); ok {
		t.Fatal("a remembered nonce was accepted while full")
	}
	clock.advance(time.Minute)
	if ok, err := m.Add(ctx, "x", time.Minute); !ok || err != nil {
		t.Fatalf("Add after expiry = %v, %v", ok, err)
	}
	if len(m.until) != 1 || len(m.order)-m.head != 1 {
		t.Fatalf("after pruning: %d keys, %d queued; want 1, 1", len(m.until), len(m.order)-m.head)
	}
}

// TestMemoryNoncesReAddAfterExpiry: an old queue entry must not delete a
// newer record of the same key.
func TestMemoryNoncesReAddAfterExpiry(t *testing.T) {
	ctx := context.Background()
	m, clock := newTestNonces(10)
	m.Add(ctx, "k", time.Second)
	m.Add(ctx, "long", time.Hour)
	clock.advance(time.Second)
	if ok, _ := m.Add(ctx, "k", time.Hour); !ok {
		t.Fatal("expired key not accepted again")
	}
	clock.advance(time.Minute)
	if ok, _ := m.Add(ctx, "k", time.Hour); ok {
		t.Fatal("re-added key forgotten early")
	}
}

func TestMemoryNoncesConcurrentAddOnce(t *testing.T) {
	m := NewMemoryNonces(1000)
	var added atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if ok, err := m.Add(context.Background(), "same", time.Minute); err != nil {
				t.Error(err)
			} else if ok {
				added.Add(1)
			}
		})
	}
	wg.Wait()
	if added.Load() != 1 {
		t.Fatalf("%d concurrent Adds of one key succeeded, want 1", added.Load())
	}
}

type failingStore struct{}

func (failingStore) Add(context.Context, string, time.Duration) (bool, error) {
	return false, errors.New("redis down")
}

func TestCheckReplayStoreError(t *testing.T) {
	err := CheckReplay(context.Background(), failingStore{}, "h", shellRequest())
	if err == nil || errors.Is(err, ErrReplayed) {
		t.Fatalf("err = %v, want the store's error, not ErrReplayed", err)
	}
}
