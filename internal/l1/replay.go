package l1

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrReplayed: the request's nonce was already used while its ts was
// acceptable. Answer it like any refused message (Invalid).
var ErrReplayed = errors.New("l1: nonce already used")

// NonceStore is the replay memory a receiver provides. It must hold for
// every receiver that accepts the same host's messages, and for as long as
// a nonce may come back: across restarts of the receiver too, or a replay
// sent after a restart is carried out again (the hub's is its database).
type NonceStore interface {
	// AddNonce records nonce under scope until the instant until and
	// reports whether it was absent as of now: never recorded, or recorded
	// until a time not after now. Of concurrent calls with one scope and
	// nonce, exactly one reports added.
	AddNonce(ctx context.Context, scope, nonce string, now, until time.Time) (added bool, err error)
}

// NonceExpiry is when a receiver may forget r's nonce: the first instant
// its ts is outside MaxSkew (Decode refuses it from then on). It depends
// on the request alone, so it is the same for every receiver, and a
// receiver that compares it with the clock it decoded with can never take
// over an expired nonce while the request is still fresh. A nonce is kept
// at most 2*MaxSkew+1s after it is first accepted.
func (r Request) NonceExpiry() time.Time {
	return time.Unix(r.TS+int64(MaxSkew/time.Second)+1, 0)
}

// CheckReplay records r's nonce under scope (the host's id, so that hosts
// never share nonces) until r.NonceExpiry and returns ErrReplayed if it was
// already recorded. now must be the time r was decoded at. Call it only
// after Decode succeeded, so that nobody without the key can fill the
// store.
func CheckReplay(ctx context.Context, s NonceStore, scope string, r Request, now time.Time) error {
	added, err := s.AddNonce(ctx, scope, r.Nonce, now, r.NonceExpiry())
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
	return &MemoryNonces{limit: limit, until: make(map[string]time.Time)}
}

// AddNonce implements NonceStore.
func (m *MemoryNonces) AddNonce(_ context.Context, scope, nonce string, now, until time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := scope + ":" + nonce
	m.prune(now)
	if until, ok := m.until[key]; ok && now.Before(until) {
		return false, nil
	}
	if len(m.until) >= m.limit {
		return false, ErrNoncesFull
	}
	m.until[key] = until
	m.order = append(m.order, nonceEntry{key, until})
	return true, nil
}

// prune forgets expired nonces from the front of the insertion order.
// Expiries follow the requests' ts, which arrive roughly in order, so that
// order is nearly expiry order; an expired entry behind a later one may
// linger (at most 2*MaxSkew), and AddNonce ignores it.
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

// load records key until until, as read back from a FileNonces file.
func (m *MemoryNonces) load(key string, until time.Time) {
	if old, ok := m.until[key]; ok && !until.After(old) {
		return
	}
	m.until[key] = until
	m.order = append(m.order, nonceEntry{key, until})
}

// free forgets expired nonces and reports whether key may be added now.
func (m *MemoryNonces) free(key string, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prune(now)
	until, ok := m.until[key]
	return !ok || !now.Before(until)
}

// live returns how many nonces the store holds (a few expired ones may
// linger; see prune).
func (m *MemoryNonces) live(now time.Time) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prune(now)
	return len(m.until)
}

// entries returns the unexpired nonces in insertion order.
func (m *MemoryNonces) entries(now time.Time) []nonceEntry {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []nonceEntry
	for _, e := range m.order[m.head:] {
		if now.Before(e.until) && m.until[e.key].Equal(e.until) {
			out = append(out, e)
		}
	}
	return out
}
