package hosts

import (
	"context"
	"errors"
	"testing"
	"time"
)

// sweepStore records what Liveness writes; other Store methods are unused.
type sweepStore struct {
	Store
	fail    bool
	batches [][]Seen
	stale   time.Time
	offline time.Time
}

func (s *sweepStore) MarkSeen(_ context.Context, seen []Seen) error {
	if s.fail {
		return errors.New("db down")
	}
	s.batches = append(s.batches, seen)
	return nil
}

func (s *sweepStore) SweepStatus(_ context.Context, stale, offline time.Time) error {
	s.stale, s.offline = stale, offline
	return nil
}

func TestLivenessBatchesAndSweeps(t *testing.T) {
	st := &sweepStore{}
	l := NewLiveness(st)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	for range 100 {
		l.Seen("h1") // many heartbeats of one host
	}
	l.Seen("h2")
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(st.batches) != 1 || len(st.batches[0]) != 2 {
		t.Fatalf("batches = %v, want one write of two hosts", st.batches)
	}
	if !st.stale.Equal(now.Add(-StaleAfter)) || !st.offline.Equal(now.Add(-OfflineAfter)) {
		t.Errorf("sweep thresholds %v, %v", st.stale, st.offline)
	}
	// A failed write keeps the facts for the next flush.
	st.fail = true
	l.Seen("h3")
	if err := l.Flush(context.Background()); err == nil {
		t.Fatal("flush hid a store error")
	}
	st.fail = false
	if err := l.Flush(context.Background()); err != nil || len(st.batches) != 2 || st.batches[1][0].HostID != "h3" {
		t.Fatalf("after recovery: %v %v, want h3 written", err, st.batches)
	}
	// Nothing heard: no write, only the sweep.
	if err := l.Flush(context.Background()); err != nil || len(st.batches) != 2 {
		t.Errorf("empty flush wrote %v", st.batches)
	}
}
