package hosts

import (
	"context"
	"fmt"
	"sync"
	"time"

	"hostgate/internal/clip"
	"hostgate/internal/periodic"
)

// EventFlushInterval is how often agents' events (connected,
// disconnected, agent.*) reach the store. A reconnect storm of 20,000
// agents then costs a transaction a second instead of one per agent, and
// a connection still shows in the host's history within about a second.
const EventFlushInterval = time.Second

// maxPendingEvents bounds the events waiting while the store fails; past
// it the oldest are dropped, and the next successful flush says how many.
const maxPendingEvents = 100_000

// eventBatch collects agents' events in arrival order and writes them in
// one transaction per flush. Like metrics samples, they are telemetry:
// the second's worth held here is lost if the process dies. Each event's
// time is taken when it happens, so the history orders it right whenever
// it is written.
type eventBatch struct {
	store   Store
	mu      sync.Mutex
	pending []HostEvent
	dropped int
	// stored counts each host's events since its last trim, as
	// metricsBatch does its samples: trimming every host of every batch
	// cost a statement per event in a reconnect storm. A host holds at
	// most KeepEvents+eventTrimEvery events.
	stored map[string]int
}

// eventTrimEvery is how many of a host's events are stored between two
// trims of its history to KeepEvents.
const eventTrimEvery = 50

func (b *eventBatch) add(e HostEvent) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stored == nil {
		b.stored = map[string]int{}
	}
	if b.stored[e.HostID]++; b.stored[e.HostID] >= eventTrimEvery {
		e.Trim = true
		delete(b.stored, e.HostID)
	}
	b.pending = append(b.pending, e)
	b.dropOverflow()
}

// dropOverflow keeps the newest maxPendingEvents; b.mu is held.
func (b *eventBatch) dropOverflow() {
	if n := len(b.pending) - maxPendingEvents; n > 0 {
		b.pending = append(b.pending[:0:0], b.pending[n:]...)
		b.dropped += n
	}
}

// flush writes the collected events; on failure they are put back ahead of
// those that arrived meanwhile. It reports events dropped since the last
// successful flush as its error, once they are known to be lost.
func (b *eventBatch) flush(ctx context.Context) error {
	b.mu.Lock()
	batch := b.pending
	b.pending = nil
	b.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := b.store.AppendEvents(ctx, batch, KeepEvents); err != nil {
		b.mu.Lock()
		b.pending = append(batch, b.pending...)
		b.dropOverflow()
		b.mu.Unlock()
		return err
	}
	b.mu.Lock()
	dropped := b.dropped
	b.dropped = 0
	b.mu.Unlock()
	if dropped > 0 {
		return &droppedEvents{n: dropped}
	}
	return nil
}

type droppedEvents struct{ n int }

func (e *droppedEvents) Error() string {
	return fmt.Sprintf("%d host events dropped while the store was failing", e.n)
}

// RecordEvent keeps an agent's event for the next batch write (RunEvents).
func (s *Service) RecordEvent(_ context.Context, hostID, kind, message string) {
	message = clip.String(message, maxEventMessage)
	s.events.add(HostEvent{HostID: hostID, Event: Event{At: s.now().UTC().Truncate(time.Microsecond), Kind: kind, Message: message}})
}

// RunEvents writes agents' events every interval until ctx ends, then once
// more (hub.Run starts it).
func (s *Service) RunEvents(ctx context.Context, interval time.Duration, onErr func(error)) {
	periodic.Run(ctx, interval, s.events.flush, onErr)
}

// FlushEvents writes the collected events now (tests, shutdown).
func (s *Service) FlushEvents(ctx context.Context) error { return s.events.flush(ctx) }
