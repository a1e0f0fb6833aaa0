package hosts

import (
	"context"
	"sync"
	"time"

	"hostgate/internal/periodic"
)

// Status lifecycle timings (docs/hosts.md). Agents heartbeat every
// HeartbeatInterval; liveness reaches the store in batches every
// FlushInterval, so a heartbeat never costs a database write of its own.
// Each flush writes a row per connected host, the largest part of an idle
// fleet's database work (100,000 agents: 1,100 row updates a second), so
// it runs every 90 s, the lag the spec allows the persisted status; a
// stored last_seen_at is then at most FlushInterval + HeartbeatInterval
// (115 s) old, inside StaleAfter.
const (
	HeartbeatInterval = 25 * time.Second
	MetricsInterval   = 60 * time.Second
	FlushInterval     = 90 * time.Second
	StaleAfter        = 150 * time.Second
	OfflineAfter      = 5 * time.Minute
)

// Liveness collects heartbeats in memory and writes them in batches, then
// moves silent hosts to stale and offline. Every hub instance runs one; the
// writes are idempotent, so several at once are harmless.
type Liveness struct {
	store Store
	now   func() time.Time
	mu    sync.Mutex
	seen  map[string]time.Time
}

// NewLiveness returns a liveness batcher over st.
func NewLiveness(st Store) *Liveness {
	return &Liveness{store: st, now: time.Now, seen: map[string]time.Time{}}
}

// Seen records that hostID was heard from now.
func (l *Liveness) Seen(hostID string) {
	l.mu.Lock()
	l.seen[hostID] = l.now().UTC().Truncate(time.Microsecond)
	l.mu.Unlock()
}

// Flush writes collected heartbeats and sweeps statuses once.
func (l *Liveness) Flush(ctx context.Context) error {
	l.mu.Lock()
	batch := make([]Seen, 0, len(l.seen))
	for id, at := range l.seen {
		batch = append(batch, Seen{HostID: id, At: at})
	}
	clear(l.seen)
	l.mu.Unlock()
	if len(batch) > 0 {
		if err := l.store.MarkSeen(ctx, batch); err != nil {
			l.requeue(batch)
			return err
		}
	}
	now := l.now().UTC()
	return l.store.SweepStatus(ctx, now.Add(-StaleAfter), now.Add(-OfflineAfter))
}

// requeue keeps a failed batch for the next flush, without overwriting
// newer facts that arrived meanwhile.
func (l *Liveness) requeue(batch []Seen) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range batch {
		if cur, ok := l.seen[s.HostID]; !ok || cur.Before(s.At) {
			l.seen[s.HostID] = s.At
		}
	}
}

// Run flushes every interval until ctx ends, then once more.
func (l *Liveness) Run(ctx context.Context, interval time.Duration, onErr func(error)) {
	periodic.Run(ctx, interval, l.Flush, onErr)
}
