package inproc

import (
	"sync"
	"testing"
	"time"

	"hostgate/internal/coord"
	"hostgate/internal/coord/coordtest"
	"hostgate/internal/eventually"
)

func TestContract(t *testing.T) {
	coordtest.Run(t, func(*testing.T) coord.Coord { return New() })
}

// fakeClock is safe for the janitor goroutine to read while the test moves
// it.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeClock) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

// TestJanitorPrunes checks that keys nobody reads again still go, and that
// live keys stay.
func TestJanitorPrunes(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	c := newCoord(clock.now, time.Millisecond)
	t.Cleanup(func() { _ = c.Close() })
	ctx := t.Context()

	must(t, c.PutTicket(ctx, "ticket:old", []byte("v"), time.Minute))
	_, err := c.Incr(ctx, "counter:old", time.Minute)
	must(t, err)
	must(t, c.SetPresence(ctx, "host:old", "inst", time.Minute))
	clock.advance(2 * time.Minute)
	must(t, c.PutTicket(ctx, "ticket:live", []byte("v"), time.Minute))
	must(t, c.SetPresence(ctx, "host:live", "inst", time.Minute))

	var got [3]int
	if !eventually.Within(5*time.Second, func() bool { got = sizes(c); return got == [3]int{1, 0, 1} }) {
		t.Fatalf("janitor: got sizes %v after 5s, want [1 0 1] (expired keys pruned)", got)
	}
	if !ticketStored(c, "ticket:live") {
		t.Fatalf("live ticket: got pruned, want kept")
	}
}

func TestCloseStopsJanitor(t *testing.T) {
	c := New()
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close: got %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close: got still waiting after 5s, want janitor stopped")
	}
	select {
	case <-c.done:
	default:
		t.Fatal("janitor: got running after Close, want stopped")
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: got %v, want nil", err)
	}
	if err := c.Ping(t.Context()); err == nil {
		t.Fatal("Ping after Close: got nil, want an error")
	}
}

// TestPresenceExpiryFakeClock pins expiry to the clock: present until the
// TTL has passed, then gone from Presence, CountPresence and the map.
func TestPresenceExpiryFakeClock(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	c := newCoord(clock.now, time.Hour)
	t.Cleanup(func() { _ = c.Close() })
	ctx := t.Context()
	must(t, c.SetPresence(ctx, "h1", "inst", time.Minute))
	must(t, c.RefreshPresence(ctx, "inst", []string{"h2", "h3"}, 2*time.Minute))
	clock.advance(time.Minute - time.Nanosecond)
	wantCountPresence(t, c, 3)
	clock.advance(time.Nanosecond)
	if _, ok, _ := c.Presence(ctx, "h1"); ok {
		t.Fatal("Presence(h1) at its expiry: got ok, want gone")
	}
	wantCountPresence(t, c, 2)
	// An expired entry goes even when a non-holder clears it.
	clock.advance(time.Minute)
	must(t, c.ClearPresence(ctx, "other", []string{"h2"}))
	if got := sizes(c)[2]; got != 1 {
		t.Fatalf("presence entries: got %d, want 1", got)
	}
	wantCountPresence(t, c, 0)
}

// TestSlowSubscriberDrops: a subscription nobody reads keeps
// SubscriptionBuffer messages and drops and counts the rest.
func TestSlowSubscriberDrops(t *testing.T) {
	c := New()
	t.Cleanup(func() { _ = c.Close() })
	ctx := t.Context()
	s, err := c.Subscribe(ctx, "chan")
	must(t, err)
	const extra = 10
	for i := range SubscriptionBuffer + extra {
		must(t, c.Publish(ctx, "chan", []byte{byte(i)}))
	}
	if got := s.(*subscription).Dropped(); got != extra {
		t.Fatalf("Dropped: got %d, want %d", got, extra)
	}
	if got := len(s.C()); got != SubscriptionBuffer {
		t.Fatalf("buffered: got %d, want %d", got, SubscriptionBuffer)
	}
}

// TestCloseEndsSubscriptions: closing the Coord closes what it handed out,
// and it hands out no more; the subscription's own Close is then a no-op.
func TestCloseEndsSubscriptions(t *testing.T) {
	c := New()
	ctx := t.Context()
	s, err := c.Subscribe(ctx, "chan")
	must(t, err)
	must(t, c.Close())
	if _, ok := <-s.C(); ok {
		t.Fatal("C after Coord.Close: got a message, want closed")
	}
	must(t, s.Close())
	if _, err := c.Subscribe(ctx, "chan"); err == nil {
		t.Fatal("Subscribe after Close: got nil error, want one")
	}
	must(t, c.Publish(ctx, "chan", []byte("late")))
}

// TestClosedSubscriptionsForgotten: closing subscriptions leaves no empty
// channel entries behind.
func TestClosedSubscriptionsForgotten(t *testing.T) {
	c := New()
	t.Cleanup(func() { _ = c.Close() })
	for i := range 3 {
		s, err := c.Subscribe(t.Context(), "chan"+string(rune('a'+i)))
		must(t, err)
		must(t, s.Close())
	}
	c.mu.Lock()
	n := len(c.subs)
	c.mu.Unlock()
	if n != 0 {
		t.Fatalf("channels with subscribers: got %d, want 0", n)
	}
}

func wantCountPresence(t *testing.T, c *Coord, want int64) {
	t.Helper()
	if got, err := c.CountPresence(t.Context()); err != nil || got != want {
		t.Fatalf("CountPresence: got %d, %v, want %d, nil", got, err, want)
	}
}

func sizes(c *Coord) [3]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return [3]int{len(c.tickets), len(c.counters), len(c.presence)}
}

func ticketStored(c *Coord, k string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.tickets[k]
	return ok
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
}
