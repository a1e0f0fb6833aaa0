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

func TestCheckReplay(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryNonces(100)
	r := shellRequest()
	if err := CheckReplay(ctx, m, "host-1", r, testNow); err != nil {
		t.Fatalf("first use: %v", err)
	}
	if err := CheckReplay(ctx, m, "host-1", r, testNow); !errors.Is(err, ErrReplayed) {
		t.Fatalf("second use: err = %v, want ErrReplayed", err)
	}
	if err := CheckReplay(ctx, m, "host-2", r, testNow); err != nil {
		t.Fatalf("same nonce, other host: %v", err)
	}
	// Still remembered at the last moment the request's ts is acceptable.
	last := r.NonceExpiry().Add(-time.Nanosecond)
	if !fresh(r.TS, last) {
		t.Fatalf("ts not fresh just before NonceExpiry")
	}
	if err := CheckReplay(ctx, m, "host-1", r, last); !errors.Is(err, ErrReplayed) {
		t.Fatalf("just before NonceExpiry: err = %v, want ErrReplayed", err)
	}
	if fresh(r.TS, r.NonceExpiry()) {
		t.Fatalf("ts still fresh at NonceExpiry: the nonce would be forgotten too early")
	}
	if err := CheckReplay(ctx, m, "host-1", r, r.NonceExpiry()); err != nil {
		t.Fatalf("at NonceExpiry: %v", err)
	}
}

// TestNonceExpiryCoversClockWindow: a nonce is remembered for as long as
// any receiver's clock accepts its ts, and no longer than 2*MaxSkew+1s
// after its earliest acceptance.
func TestNonceExpiryCoversClockWindow(t *testing.T) {
	r := shellRequest()
	for d := -MaxSkew - 2*time.Second; d <= MaxSkew+2*time.Second; d += 250 * time.Millisecond {
		now := r.Time().Add(d)
		if fresh(r.TS, now) != now.Before(r.NonceExpiry()) && d >= -MaxSkew {
			t.Fatalf("at ts%+v: fresh %v, before NonceExpiry %v", d, fresh(r.TS, now), now.Before(r.NonceExpiry()))
		}
	}
	if span := r.NonceExpiry().Sub(r.Time().Add(-MaxSkew)); span > 2*MaxSkew+time.Second {
		t.Fatalf("a nonce is kept %v", span)
	}
}

func TestMemoryNoncesFullRefuses(t *testing.T) {
	ctx := context.Background()
	m := NewMemoryNonces(3)
	until := testNow.Add(time.Minute)
	for i := range 3 {
		if ok, err := m.AddNonce(ctx, "s", fmt.Sprint(i), testNow, until); !ok || err != nil {
			t.Fatalf("Add(%d) = %v, %v", i, ok, err)
		}
	}
	if ok, err := m.AddNonce(ctx, "s", "x", testNow, until); ok || !errors.Is(err, ErrNoncesFull) {
		t.Fatalf("Add when full = %v, %v; want ErrNoncesFull", ok, err)
	}
	if ok, _ := m.AddNonce(ctx, "s", "0", testNow, until); ok {
		t.Fatal("a remembered nonce was accepted while full")
	}
	if ok, err := m.AddNonce(ctx, "s", "x", until, until.Add(time.Minute)); !ok || err != nil {
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
	now := testNow
	m := NewMemoryNonces(10)
	m.AddNonce(ctx, "s", "k", now, now.Add(time.Second))
	m.AddNonce(ctx, "s", "long", now, now.Add(time.Hour))
	now = now.Add(time.Second)
	if ok, _ := m.AddNonce(ctx, "s", "k", now, now.Add(time.Hour)); !ok {
		t.Fatal("expired key not accepted again")
	}
	now = now.Add(time.Minute)
	if ok, _ := m.AddNonce(ctx, "s", "k", now, now.Add(time.Hour)); ok {
		t.Fatal("re-added key forgotten early")
	}
}

func TestMemoryNoncesConcurrentAddOnce(t *testing.T) {
	m := NewMemoryNonces(1000)
	var added atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if ok, err := m.AddNonce(context.Background(), "s", "same", testNow, testNow.Add(time.Minute)); err != nil {
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

func (failingStore) AddNonce(context.Context, string, string, time.Time, time.Time) (bool, error) {
	return false, errors.New("redis down")
}

func TestCheckReplayStoreError(t *testing.T) {
	err := CheckReplay(context.Background(), failingStore{}, "h", shellRequest(), testNow)
	if err == nil || errors.Is(err, ErrReplayed) {
		t.Fatalf("err = %v, want the store's error, not ErrReplayed", err)
	}
}
