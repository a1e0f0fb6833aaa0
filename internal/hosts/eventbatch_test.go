package hosts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// eventStore records AppendEvents batches, failing while fail is set.
type eventStore struct {
	Store
	fail    bool
	written []HostEvent
}

func (s *eventStore) AppendEvents(_ context.Context, batch []HostEvent, keep int) error {
	if s.fail {
		return errors.New("store down")
	}
	if keep != KeepEvents {
		return fmt.Errorf("keep = %d", keep)
	}
	s.written = append(s.written, batch...)
	return nil
}

func kinds(es []HostEvent) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Kind)
	}
	return out
}

func TestEventsKeepTheirOrderAcrossAFailedFlush(t *testing.T) {
	st := &eventStore{}
	s := &Service{store: st, now: time.Now, events: &eventBatch{store: st}}
	ctx := context.Background()
	s.RecordEvent(ctx, "h1", "connected", "agent 1.0 from 10.0.0.1")
	s.RecordEvent(ctx, "h2", "connected", "")
	st.fail = true
	if err := s.FlushEvents(ctx); err == nil {
		t.Fatal("a failed write must be reported")
	}
	s.RecordEvent(ctx, "h1", "disconnected", "")
	st.fail = false
	if err := s.FlushEvents(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := kinds(st.written), []string{"connected", "connected", "disconnected"}; !slices.Equal(got, want) {
		t.Fatalf("written %v, want %v", got, want)
	}
	if st.written[0].HostID != "h1" || st.written[0].Message != "agent 1.0 from 10.0.0.1" || st.written[0].At.IsZero() {
		t.Errorf("first event %+v", st.written[0])
	}
	if err := s.FlushEvents(ctx); err != nil || len(st.written) != 3 {
		t.Errorf("an empty flush wrote or failed: %d, %v", len(st.written), err)
	}
}

func TestEventsBeyondTheBoundDropTheOldestAndSaySo(t *testing.T) {
	st := &eventStore{fail: true}
	s := &Service{store: st, now: time.Now, events: &eventBatch{store: st}}
	ctx := context.Background()
	for i := range maxPendingEvents + 5 {
		s.RecordEvent(ctx, "h", fmt.Sprint(i), "")
	}
	_ = s.FlushEvents(ctx)
	st.fail = false
	err := s.FlushEvents(ctx)
	if err == nil || err.Error() != "5 host events dropped while the store was failing" {
		t.Fatalf("err = %v, want the 5 dropped counted", err)
	}
	if len(st.written) != maxPendingEvents || st.written[0].Kind != "5" {
		t.Errorf("wrote %d from %q, want the newest %d from \"5\"", len(st.written), st.written[0].Kind, maxPendingEvents)
	}
}

// TestEventsAskForATrimEveryFewPerHost: a host's history is cut once per
// eventTrimEvery of its events, not at every batch.
func TestEventsAskForATrimEveryFewPerHost(t *testing.T) {
	st := &eventStore{}
	s := &Service{store: st, now: time.Now, events: &eventBatch{store: st}}
	ctx := context.Background()
	for range 2*eventTrimEvery + 1 {
		s.RecordEvent(ctx, "busy", "connected", "")
		s.RecordEvent(ctx, "quiet", "connected", "")
		s.RecordEvent(ctx, "quiet", "disconnected", "")
	}
	st.fail = true
	_ = s.FlushEvents(ctx) // a retried event keeps its request
	st.fail = false
	if err := s.FlushEvents(ctx); err != nil {
		t.Fatal(err)
	}
	var trims []string
	for i, e := range st.written {
		if e.Trim {
			trims = append(trims, fmt.Sprint(e.HostID, "@", i))
		}
	}
	// busy's events are at 0, 3, 6, …: its 50th is at 147; quiet's at 1,
	// 2, 4, 5, …: its 50th at 74, and it has 202.
	want := []string{"quiet@74", "busy@147", "quiet@149", "quiet@224", "busy@297", "quiet@299"}
	slices.Sort(want)
	slices.Sort(trims)
	if !slices.Equal(trims, want) {
		t.Errorf("trims at %v, want %v", trims, want)
	}
}
