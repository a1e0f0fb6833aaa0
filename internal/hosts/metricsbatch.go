package hosts

import (
	"context"
	"sync"
	"time"

	"hostgate/internal/periodic"
)

// MetricsFlushInterval is how often collected metrics samples reach the
// store. An agent pushes one every MetricsInterval, so an idle fleet of
// 20,000 agents costs one transaction of about 1,700 rows every flush
// rather than 333 transactions a second.
const MetricsFlushInterval = 5 * time.Second

// trimEvery is how many of a host's samples are stored between two trims
// of its history to KeepMetrics: a trim walks KeepMetrics index entries,
// so each sample does not pay for one. A host holds at most
// KeepMetrics+trimEvery samples.
const trimEvery = 60

// metricsBatch collects samples in memory, the newest per host, and
// writes them in one transaction per flush. A sample is telemetry: the
// few seconds' worth held here are lost if the process dies.
type metricsBatch struct {
	store Store
	mu    sync.Mutex
	next  map[string]Metrics
	// stored counts each host's samples since its last trim.
	stored map[string]int
}

func newMetricsBatch(st Store) *metricsBatch {
	return &metricsBatch{store: st, next: map[string]Metrics{}, stored: map[string]int{}}
}

// add keeps m as hostID's sample for the next flush, replacing one not
// yet written: an agent pushing faster than the flush gets its newest
// sample stored.
func (b *metricsBatch) add(hostID string, m Metrics) {
	b.mu.Lock()
	b.next[hostID] = m
	b.mu.Unlock()
}

// flush writes the collected samples; on failure they are kept for the
// next flush unless a newer sample of the host arrived meanwhile.
func (b *metricsBatch) flush(ctx context.Context) error {
	b.mu.Lock()
	if len(b.next) == 0 {
		b.mu.Unlock()
		return nil
	}
	batch := make([]Sample, 0, len(b.next))
	for id, m := range b.next {
		b.stored[id]++
		batch = append(batch, Sample{HostID: id, Metrics: m, Trim: b.stored[id] >= trimEvery})
		if b.stored[id] >= trimEvery {
			delete(b.stored, id)
		}
	}
	clear(b.next)
	b.mu.Unlock()
	err := b.store.AppendMetrics(ctx, batch, KeepMetrics)
	if err != nil {
		b.mu.Lock()
		for _, s := range batch {
			if _, newer := b.next[s.HostID]; !newer {
				b.next[s.HostID] = s.Metrics
			}
			if s.Trim {
				b.stored[s.HostID] = trimEvery // trim with the retry
			}
		}
		b.mu.Unlock()
	}
	return err
}

// RunMetrics writes agents' metrics samples every interval until ctx
// ends, then once more (hub.Run starts it).
func (s *Service) RunMetrics(ctx context.Context, interval time.Duration, onErr func(error)) {
	periodic.Run(ctx, interval, s.metrics.flush, onErr)
}

// FlushMetrics writes the collected samples now (tests, shutdown).
func (s *Service) FlushMetrics(ctx context.Context) error { return s.metrics.flush(ctx) }
