package l1

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrReplayed: the request's nonce was already used within ReplayTTL.
// Answer it like any refused message (Invalid).
var ErrReplayed = errors.New("l1: nonce already used")

// NonceStore is the replay memory a receiver provides. Add must be atomic
// for every receiver that accepts the same host's messages: of concurrent
// calls with one key, exactly one reports added. With Redis that is
// SET key 1 NX PX ttl; with coord.Coord, Incr(key, ttl) returning 1.
type NonceStore interface {
	// Add records key for ttl and reports whether it was absent.
	Add(ctx context.Context, key string, ttl time.Duration) (added bool, err error)
}

// CheckReplay records r's nonce for ReplayTTL under scope (the host's id,
// so that hosts never share nonces) and returns ErrReplayed if it was
// already recorded. Call it only after Decode succeeded, so that nobody
// without the key can fill the store.
func CheckReplay(ctx context.Context, s NonceStore, scope string, r Request) error {
	added, err := s.Add(ctx, "l1:nonce:"+scope+":"+r.Nonce, ReplayTTL)
	if err != nil {
		return fmt.Errorf("l1: replay check: %w", err)
	}
	if !added {
		return ErrReplayed
	}
	return nil
}

// ErrNoncesFull: a MemoryNonces holds its maximum of live nonces. Refusing
// (rather than forgetting) keeps the replay guarantee.
var ErrNoncesFull = errors.New("l1: nonce memory full")

// MemoryNonces is an in-process NonceStore for a single receiver, such as
// the agent's local listener. It holds at most a fixed number of nonces.
type MemoryNonces struct {
	mu    sync.Mutex
	limit int
	now   func() time.Time
	until map[string]time.Time
	order []nonceEntry // insertion order; entries before head are gone
	head  int
}

type nonceEntry struct {
	key   string
	until time.Time
}

// NewMemoryNonces returns an empty store holding at most limit live nonces.
func NewMemoryNonces(limit int) *MemoryNonces {
	return &MemoryNonces{limit: limit, now: time.Now, until: make(map[string]time.Time)}
}

// Add implements NonceStore.
func (m *MemoryNonces) Add(_ context.Context, key string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.prune(now)
	if until, ok := m.until[key]; ok && now.Before(until) {
		return false, nil
	}
	if len(m.until) >= m.limit {
		return false, ErrNoncesFull
	}
	until := now.Add(ttl)
	m.until[key] = until
	m.order = append(m.order, nonceEntry{key, until})
	return true, nil
}

// prune forgets expired nonces from the front of the insertion order. With
// one ttl for all (ReplayTTL) that order is also expiry order; with mixed
// ttls an expired entry may linger, and Add ignores it.
func (m *MemoryNonces) prune(now time.Time) {
	for ; m.head < len(m.order) && !now.Before(m.order[m.head].until); m.head++ {
		e := m.order[m.head]
		if m.until[e.key].Equal(e.until) {
			delete(m.until, e.key)
		}
	}
	// Compact once the dead prefix is half the slice: amortised O(1) per Add.
	if m.head > len(m.order)/2 {
		m.order = append(m.order[:0:0], m.order[m.head:]...)
		m.head = 0
	}
}
