package hosts

import (
	"context"
	"errors"
	"testing"
	"time"
)

// metricsStore records the batches the metrics writer stores.
type metricsStore struct {
	Store
	fail    bool
	batches [][]Sample
}

func (s *metricsStore) AppendMetrics(_ context.Context, batch []Sample, keep int) error {
	if keep != KeepMetrics {
		return errors.New("wrong keep")
	}
	if s.fail {
		return errors.New("db down")
	}
	s.batches = append(s.batches, batch)
	return nil
}

func TestMetricsBatchCoalescesAndRetries(t *testing.T) {
	st := &metricsStore{}
	b := newMetricsBatch(st)
	ctx := t.Context()
	if err := b.flush(ctx); err != nil || len(st.batches) != 0 {
		t.Fatalf("empty flush: %v, %d batches; want no write", err, len(st.batches))
	}
	b.add("h1", Metrics{CPUPct: 1})
	b.add("h1", Metrics{CPUPct: 2}) // an agent faster than the flush: the newest wins
	b.add("h2", Metrics{CPUPct: 3})
	if err := b.flush(ctx); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, s := range st.batches[0] {
		got[s.HostID] = s.CPUPct
	}
	if len(st.batches) != 1 || len(got) != 2 || got["h1"] != 2 || got["h2"] != 3 {
		t.Fatalf("first batch: %+v", st.batches)
	}

	// A failed write keeps its samples, unless a newer one arrived.
	st.fail = true
	b.add("h1", Metrics{CPUPct: 4})
	b.add("h2", Metrics{CPUPct: 5})
	if err := b.flush(ctx); err == nil {
		t.Fatal("flush with the store down: got nil error")
	}
	b.add("h2", Metrics{CPUPct: 6})
	st.fail = false
	if err := b.flush(ctx); err != nil {
		t.Fatal(err)
	}
	clear(got)
	for _, s := range st.batches[1] {
		got[s.HostID] = s.CPUPct
	}
	if len(got) != 2 || got["h1"] != 4 || got["h2"] != 6 {
		t.Fatalf("batch after the failure: %+v, want h1 4 (kept) and h2 6 (newer)", st.batches[1])
	}
}

func TestMetricsBatchTrimsEachHostEveryTrimEvery(t *testing.T) {
	st := &metricsStore{}
	b := newMetricsBatch(st)
	trims := 0
	for i := range 3 * trimEvery {
		b.add("h1", Metrics{At: time.Unix(int64(i), 0)})
		if err := b.flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		if s := st.batches[len(st.batches)-1][0]; s.Trim {
			trims++
			if (i+1)%trimEvery != 0 {
				t.Fatalf("trim at sample %d, want every %d", i+1, trimEvery)
			}
		}
	}
	if trims != 3 {
		t.Fatalf("%d trims in %d samples, want 3", trims, 3*trimEvery)
	}
}
