package coordtest

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"testing"

	"hostgate/internal/coord"
)

// channel gives each subtest its own pub/sub channels, as key does for keys.
func channel(t *testing.T, name string) string {
	t.Helper()
	return "coordtest:" + t.Name() + ":" + name
}

func testPubSubTwoSubscribers(t *testing.T, c coord.Coord) {
	const n = 200
	ch := channel(t, "ch")
	s1, s2 := subscribe(t, c, ch), subscribe(t, c, ch)
	for i := range n {
		publish(t, c, ch, "m"+strconv.Itoa(i))
	}
	for i := range n {
		want := "m" + strconv.Itoa(i)
		wantRecv(t, s1, want)
		wantRecv(t, s2, want)
	}
}

func testPubSubNoHistory(t *testing.T, c coord.Coord) {
	ch := channel(t, "ch")
	publish(t, c, ch, "before")
	s := subscribe(t, c, ch)
	publish(t, c, ch, "after")
	wantRecv(t, s, "after")
}

// testPubSubOutlivesContext: Subscribe's context covers subscribing only;
// the subscription lives until Close.
func testPubSubOutlivesContext(t *testing.T, c coord.Coord) {
	ch := channel(t, "ch")
	ctx, cancel := context.WithCancel(t.Context())
	s, err := c.Subscribe(ctx, ch)
	if err != nil {
		t.Fatalf("Subscribe: got error %v, want nil", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	cancel()
	publish(t, c, ch, "after-cancel")
	wantRecv(t, s, "after-cancel")
}

// testPubSubClose closes one of two subscribers: it gets nothing more and
// its C is closed, while the other goes on receiving.
func testPubSubClose(t *testing.T, c coord.Coord) {
	ch := channel(t, "ch")
	s1, s2 := subscribe(t, c, ch), subscribe(t, c, ch)
	publish(t, c, ch, "one")
	wantRecv(t, s1, "one")
	wantRecv(t, s2, "one")
	if err := s1.Close(); err != nil {
		t.Fatalf("Close: got %v, want nil", err)
	}
	if err := s1.Close(); err != nil {
		t.Fatalf("second Close: got %v, want nil", err)
	}
	publish(t, c, ch, "two")
	wantRecv(t, s2, "two")
	select {
	case m, ok := <-s1.C():
		if ok {
			t.Fatalf("closed subscription: got message %.40q, want C closed", m)
		}
	case <-ctxDone(t):
		t.Fatalf("closed subscription: got C still open after %v, want closed", deadline)
	}
}

// testPubSubChannelsIsolated relies on per-channel order: if "for-a" had
// reached b, it would arrive before "for-b".
func testPubSubChannelsIsolated(t *testing.T, c coord.Coord) {
	chA, chB := channel(t, "a"), channel(t, "b")
	sa, sb := subscribe(t, c, chA), subscribe(t, c, chB)
	publish(t, c, chA, "for-a")
	publish(t, c, chB, "for-b")
	wantRecv(t, sb, "for-b")
	wantRecv(t, sa, "for-a")
	publish(t, c, chA, "a2")
	publish(t, c, chB, "b2")
	wantRecv(t, sa, "a2")
	wantRecv(t, sb, "b2")
}

// testPubSubConcurrentPublishers has a consumer that keeps up, so nothing
// may be lost, and each publisher's messages must arrive in its order.
func testPubSubConcurrentPublishers(t *testing.T, c coord.Coord) {
	const publishers, each = 10, 100
	ch := channel(t, "ch")
	s := subscribe(t, c, ch)
	done := consume(t, s, publishers*each, func(m []byte, next []int) error {
		var p, i int
		if _, err := fmt.Sscanf(string(m), "%d:%d", &p, &i); err != nil || p < 0 || p >= publishers {
			return fmt.Errorf("got %q, want \"<publisher>:<seq>\"", m)
		}
		if i != next[p] {
			return fmt.Errorf("publisher %d: got seq %d, want %d (lost or reordered)", p, i, next[p])
		}
		next[p]++
		return nil
	}, publishers)
	race(publishers, func(p int) {
		for i := range each {
			if err := c.Publish(t.Context(), ch, fmt.Appendf(nil, "%d:%d", p, i)); err != nil {
				t.Errorf("Publish: got error %v, want nil", err)
				return
			}
		}
	})
	if err := <-done; err != nil {
		t.Fatalf("subscriber: %v", err)
	}
}

// consume reads n messages from s in a goroutine, as a consumer that keeps
// up, passing each to check with a scratch slice of size state; the
// channel returns the first error, or nil after n.
func consume(t *testing.T, s coord.Subscription, n int, check func(m []byte, state []int) error, state int) <-chan error {
	done := make(chan error, 1)
	go func() {
		st := make([]int, state)
		for range n {
			m, err := recvCtx(t.Context(), s)
			if err == nil {
				err = check(m, st)
			}
			if err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	return done
}

// testPubSubLargeMessage sends 256 KiB of binary data and checks that no
// one can change what another holds: not the publisher after Publish, not
// one subscriber for the other.
func testPubSubLargeMessage(t *testing.T, c coord.Coord) {
	ch := channel(t, "ch")
	s1, s2 := subscribe(t, c, ch), subscribe(t, c, ch)
	msg := make([]byte, 256<<10)
	for i := range msg {
		msg[i] = byte(i * 7) // every byte value, zeros included
	}
	want := bytes.Clone(msg)
	must(t, c.Publish(t.Context(), ch, msg))
	clear(msg)
	got1 := recv(t, s1)
	if !bytes.Equal(got1, want) {
		t.Fatalf("subscriber 1: got %d bytes differing from the %d sent", len(got1), len(want))
	}
	clear(got1)
	if got2 := recv(t, s2); !bytes.Equal(got2, want) {
		t.Fatalf("subscriber 2: got %d bytes differing from the %d sent", len(got2), len(want))
	}
}

// testPubSubSlowSubscriber has one subscriber that does not read while
// many messages go out: publishers and the other subscriber must not wait
// for it. Whatever it kept comes in order, without duplicates.
func testPubSubSlowSubscriber(t *testing.T, c coord.Coord) {
	const n = 3000
	ch := channel(t, "ch")
	slow, fast := subscribe(t, c, ch), subscribe(t, c, ch)
	// fast reads each batch before the next goes out, so it never lags by
	// more than a batch; slow falls further behind with every batch.
	const batch = 100
	for start := 0; start < n; start += batch {
		for i := start; i < start+batch; i++ {
			publish(t, c, ch, strconv.Itoa(i))
		}
		for i := start; i < start+batch; i++ {
			wantRecv(t, fast, strconv.Itoa(i))
		}
	}
	must(t, slow.Close())
	last := -1
	for m := range slow.C() {
		i, err := strconv.Atoi(string(m))
		if err != nil || i <= last || i >= n {
			t.Fatalf("slow subscriber: got %q after %d, want a later message of 0..%d", m, last, n-1)
		}
		last = i
	}
}

// subscribe subscribes and closes the subscription when the test ends,
// before the Coord is.
func subscribe(t *testing.T, c coord.Coord, ch string) coord.Subscription {
	t.Helper()
	s, err := c.Subscribe(t.Context(), ch)
	if err != nil {
		t.Fatalf("Subscribe(%q): got error %v, want nil", ch, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Subscription.Close: got %v, want nil", err)
		}
	})
	return s
}

func publish(t *testing.T, c coord.Coord, ch, msg string) {
	t.Helper()
	if err := c.Publish(t.Context(), ch, []byte(msg)); err != nil {
		t.Fatalf("Publish(%q): got error %v, want nil", ch, err)
	}
}

func recv(t *testing.T, s coord.Subscription) []byte {
	t.Helper()
	m, err := recvCtx(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func recvCtx(ctx context.Context, s coord.Subscription) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	select {
	case m, ok := <-s.C():
		if !ok {
			return nil, fmt.Errorf("receive: got C closed, want a message")
		}
		return m, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("receive: got nothing within %v, want a message", deadline)
	}
}

func wantRecv(t *testing.T, s coord.Subscription, want string) {
	t.Helper()
	if got := recv(t, s); string(got) != want {
		t.Fatalf("receive: got %.60q, want %q", got, want)
	}
}

// ctxDone returns a channel closed after deadline, or when the test ends.
func ctxDone(t *testing.T) <-chan struct{} {
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	t.Cleanup(cancel)
	return ctx.Done()
}
