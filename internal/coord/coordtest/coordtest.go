// Package coordtest is the contract every coord.Coord must meet. Each
// implementation's tests call Run, so Redis and the in-process Coord cannot
// drift apart in behaviour the hub relies on.
package coordtest

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/coord"
)

// Timings. Short TTLs are only ever waited out; anything that must still be
// present when checked gets long, so a slow (-race, loaded CI) machine
// cannot turn a pass into a failure.
const (
	short    = 100 * time.Millisecond
	long     = time.Minute
	deadline = 5 * time.Second
	poll     = 10 * time.Millisecond
)

// Run checks the coord.Coord contract. open is called once per subtest and
// must return a fresh, open Coord; Run closes it when the subtest ends, so
// open must not. Subtests run in parallel and use keys and channels of
// their own; the presence subtests also count presence, which is global to
// a Coord, so they need it fresh (for Redis: a prefix of their own).
func Run(t *testing.T, open func(t *testing.T) coord.Coord) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(*testing.T, coord.Coord)
	}{
		{"TicketPutTakeOnce", testTicketOnce},
		{"TakeMissingTicket", testTakeMissing},
		{"TicketExpires", testTicketExpires},
		{"TicketRace", testTicketRace},
		{"TicketEmptyValue", testTicketEmpty},
		{"TicketValuesAreCopied", testTicketCopied},
		{"IncrCounts", testIncrCounts},
		{"CounterWindowExpires", testCounterWindow},
		{"IncrConcurrent", testIncrConcurrent},
		{"NonPositiveTTLRejected", testBadTTL},
		{"PresenceSetGetOverwrite", testPresenceSetGet},
		{"PresenceExpires", testPresenceExpires},
		{"PresenceManyEmpty", testPresenceManyEmpty},
		{"PresenceManyMissingAndExpired", testPresenceManyMissing},
		{"PresenceManyBatch", testPresenceManyBatch},
		{"PresenceRefreshBatch", testPresenceRefreshBatch},
		{"PresenceClearOnlyByHolder", testPresenceClear},
		{"PresenceClearBatch", testPresenceClearBatch},
		{"PresenceCountFollowsExpiry", testPresenceCountExpiry},
		{"PresenceNonPositiveTTLRejected", testPresenceBadTTL},
		{"PubSubTwoSubscribersInOrder", testPubSubTwoSubscribers},
		{"PubSubNoHistory", testPubSubNoHistory},
		{"PubSubOutlivesSubscribeContext", testPubSubOutlivesContext},
		{"PubSubClosedSubscriptionStops", testPubSubClose},
		{"PubSubChannelsIsolated", testPubSubChannelsIsolated},
		{"PubSubConcurrentPublishers", testPubSubConcurrentPublishers},
		{"PubSubLargeMessage", testPubSubLargeMessage},
		{"PubSubSlowSubscriberDoesNotBlock", testPubSubSlowSubscriber},
		{"PingAndName", testPingName},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := open(t)
			t.Cleanup(func() {
				if err := c.Close(); err != nil {
					t.Errorf("Close: got %v, want nil", err)
				}
			})
			tc.fn(t, c)
		})
	}
}

// key gives each subtest its own keys even if open hands out a shared
// Coord.
func key(t *testing.T, name string) string {
	t.Helper()
	return "coordtest:" + t.Name() + ":" + name
}

func testTicketOnce(t *testing.T, c coord.Coord) {
	k, want := key(t, "ticket"), []byte("secret-value")
	must(t, c.PutTicket(t.Context(), k, want, long))
	wantTicket(t, c, k, want, true)
	wantTicket(t, c, k, nil, false)
}

func testTakeMissing(t *testing.T, c coord.Coord) {
	wantTicket(t, c, key(t, "missing"), nil, false)
}

// testTicketExpires sleeps rather than polls: polling with TakeTicket would
// consume a ticket that has not expired yet.
func testTicketExpires(t *testing.T, c coord.Coord) {
	k := key(t, "ticket")
	must(t, c.PutTicket(t.Context(), k, []byte("v"), short))
	time.Sleep(3 * short)
	wantTicket(t, c, k, nil, false)
}

// testTicketRace repeats the race on fresh tickets because one round can
// miss a non-atomic take by luck.
func testTicketRace(t *testing.T, c coord.Coord) {
	for round := range 5 {
		k := key(t, "ticket"+strconv.Itoa(round))
		if got := takeRace(t, c, k, 100); got != 1 {
			t.Fatalf("round %d: TakeTicket winners: got %d, want 1", round, got)
		}
	}
}

// takeRace has n goroutines take the ticket at k together and returns how
// many got it.
func takeRace(t *testing.T, c coord.Coord, k string, n int) int32 {
	t.Helper()
	want := []byte("only-once")
	must(t, c.PutTicket(t.Context(), k, want, long))
	var wins atomic.Int32
	race(n, func(int) {
		v, ok, err := c.TakeTicket(t.Context(), k)
		if err != nil {
			t.Errorf("TakeTicket: got error %v, want nil", err)
		}
		if ok {
			wins.Add(1)
			if !bytes.Equal(v, want) {
				t.Errorf("TakeTicket: got %q, want %q", v, want)
			}
		}
	})
	return wins.Load()
}

func testTicketEmpty(t *testing.T, c coord.Coord) {
	k := key(t, "ticket")
	must(t, c.PutTicket(t.Context(), k, []byte{}, long))
	wantTicket(t, c, k, []byte{}, true)
}

// testTicketCopied puts one slice under two keys and mutates it and a
// taken copy; neither may reach what is stored.
func testTicketCopied(t *testing.T, c coord.Coord) {
	ctx, k1, k2 := t.Context(), key(t, "one"), key(t, "two")
	in := []byte("original")
	must(t, c.PutTicket(ctx, k1, in, long))
	must(t, c.PutTicket(ctx, k2, in, long))
	copy(in, "mutated!")
	v, ok, err := c.TakeTicket(ctx, k1)
	if err != nil || !ok {
		t.Fatalf("TakeTicket: got ok=%v err=%v, want ok=true err=nil", ok, err)
	}
	if string(v) != "original" {
		t.Fatalf("after mutating input: got %q, want %q", v, "original")
	}
	copy(v, "changed!")
	wantTicket(t, c, k2, []byte("original"), true)
}

func testIncrCounts(t *testing.T, c coord.Coord) {
	k := key(t, "counter")
	for want := int64(1); want <= 5; want++ {
		wantIncr(t, c, k, long, want)
	}
}

func testCounterWindow(t *testing.T, c coord.Coord) {
	k := key(t, "counter")
	wantIncr(t, c, k, short, 1)
	wantIncr(t, c, k, short, 2)
	// Until the window ends the count goes on; the first count after it is 1.
	eventually(t, "counter window to end", func() bool {
		n, err := c.Incr(t.Context(), k, short)
		if err != nil {
			t.Fatalf("Incr: %v", err)
		}
		return n == 1
	})
}

func testIncrConcurrent(t *testing.T, c coord.Coord) {
	const n = 50
	k := key(t, "counter")
	got := make([]int64, n)
	race(n, func(i int) {
		v, err := c.Incr(t.Context(), k, long)
		if err != nil {
			t.Errorf("Incr: got error %v, want nil", err)
		}
		got[i] = v
	})
	slices.Sort(got)
	for i, v := range got {
		if v != int64(i+1) {
			t.Fatalf("sorted Incr results: got %v, want 1..%d each once", got, n)
		}
	}
	wantIncr(t, c, k, long, n+1)
}

// testBadTTL pins down what the interface leaves open: Redis would keep a
// zero-TTL key forever, in-process would drop it at once, so both refuse.
func testBadTTL(t *testing.T, c coord.Coord) {
	ctx := t.Context()
	for _, ttl := range []time.Duration{0, -time.Second} {
		if err := c.PutTicket(ctx, key(t, "ticket"), []byte("v"), ttl); err == nil {
			t.Errorf("PutTicket(ttl=%v): got nil error, want one", ttl)
		}
		if _, err := c.Incr(ctx, key(t, "counter"), ttl); err == nil {
			t.Errorf("Incr(window=%v): got nil error, want one", ttl)
		}
	}
	wantTicket(t, c, key(t, "ticket"), nil, false)
	wantIncr(t, c, key(t, "counter"), long, 1) // the refused Incr counted nothing
}

func testPingName(t *testing.T, c coord.Coord) {
	if err := c.Ping(t.Context()); err != nil {
		t.Errorf("Ping: got %v, want nil", err)
	}
	if c.Name() == "" {
		t.Errorf("Name: got empty, want a name")
	}
}

// race runs fn(0..n-1) in n goroutines released together, to make
// overlapping calls as likely as possible.
func race(n int, fn func(i int)) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			fn(i)
		})
	}
	close(start)
	wg.Wait()
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waited %v for %s: got still pending, want done", deadline, what)
		case <-tick.C:
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
}

func wantTicket(t *testing.T, c coord.Coord, k string, want []byte, wantOK bool) {
	t.Helper()
	got, ok, err := c.TakeTicket(t.Context(), k)
	if err != nil {
		t.Fatalf("TakeTicket(%q): got error %v, want nil", k, err)
	}
	if ok != wantOK || !bytes.Equal(got, want) {
		t.Fatalf("TakeTicket(%q): got %q ok=%v, want %q ok=%v", k, got, ok, want, wantOK)
	}
}

func wantIncr(t *testing.T, c coord.Coord, k string, window time.Duration, want int64) {
	t.Helper()
	got, err := c.Incr(t.Context(), k, window)
	if err != nil {
		t.Fatalf("Incr(%q): got error %v, want nil", k, err)
	}
	if got != want {
		t.Fatalf("Incr(%q): got %d, want %d", k, got, want)
	}
}
