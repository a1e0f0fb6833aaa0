package recent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"hostgate/internal/coord/inproc"
	"hostgate/internal/eventually"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// counter is a store read that returns how many times it ran.
func counter(n *int) func(context.Context) (int, error) {
	return func(context.Context) (int, error) { *n++; return *n, nil }
}

func TestGetServesAReadForTheTTLOnly(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	c := New[int]("t", nil)
	c.now = clk.now
	ctx := context.Background()
	reads := 0
	for range 3 {
		if v, _ := c.Get(ctx, "k", counter(&reads)); v != 1 {
			t.Fatalf("within the TTL got %d, want the first read", v)
		}
	}
	clk.t = clk.t.Add(TTL)
	if v, _ := c.Get(ctx, "k", counter(&reads)); v != 2 {
		t.Fatalf("after the TTL got %d, want a new read", v)
	}
}

func TestFailedReadsAreNotKept(t *testing.T) {
	c := New[int]("t", nil)
	ctx := context.Background()
	boom := errors.New("boom")
	if _, err := c.Get(ctx, "k", func(context.Context) (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	reads := 0
	if v, _ := c.Get(ctx, "k", counter(&reads)); v != 1 {
		t.Fatalf("got %d after a failed read, want a new read", v)
	}
}

func TestForgetDropsOneKeyOrAll(t *testing.T) {
	c := New[int]("t", nil)
	ctx := context.Background()
	reads := 0
	c.Get(ctx, "a", counter(&reads))
	c.Get(ctx, "b", counter(&reads))
	c.Forget(ctx, "a")
	if v, _ := c.Get(ctx, "a", counter(&reads)); v != 3 {
		t.Fatalf("a after Forget = %d, want a new read (3)", v)
	}
	if v, _ := c.Get(ctx, "b", counter(&reads)); v != 2 {
		t.Fatalf("b after Forget(a) = %d, want the cached 2", v)
	}
	c.Forget(ctx, "")
	if v, _ := c.Get(ctx, "b", counter(&reads)); v != 4 {
		t.Fatalf("b after Forget(all) = %d, want a new read (4)", v)
	}
}

// A read that started before a Forget may carry the forgotten fact: it is
// returned to its caller but not kept.
func TestReadOverlappingAForgetIsNotKept(t *testing.T) {
	c := New[string]("t", nil)
	ctx := context.Background()
	v, _ := c.Get(ctx, "k", func(context.Context) (string, error) {
		c.Forget(ctx, "k") // the fact changes while it is being read
		return "old", nil
	})
	if v != "old" {
		t.Fatalf("got %q", v)
	}
	v, _ = c.Get(ctx, "k", func(context.Context) (string, error) { return "new", nil })
	if v != "new" {
		t.Fatalf("after an overlapping Forget got %q, want a new read", v)
	}
}

func TestEntriesOlderThanTwoTTLsAreDiscarded(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	c := New[int]("t", nil)
	c.now = clk.now
	ctx := context.Background()
	reads := 0
	for i := range 100 {
		c.Get(ctx, string(rune('a'+i%26))+string(rune('a'+i/26)), counter(&reads))
	}
	clk.t = clk.t.Add(TTL)
	c.Get(ctx, "x", counter(&reads)) // rotates: the 100 become the older generation
	clk.t = clk.t.Add(TTL)
	c.Get(ctx, "y", counter(&reads)) // rotates again: they are gone
	if n := c.Len(); n != 2 {
		t.Fatalf("held %d entries, want 2", n)
	}
}

// Two instances share a coordinator: a Forget on one reaches the other's
// cache of the same name, and no other.
func TestForgetReachesOtherInstances(t *testing.T) {
	co := inproc.New()
	defer co.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	run := func(b *Bus) {
		ready := make(chan struct{})
		go func() { _ = b.Run(ctx, ready) }()
		<-ready
	}
	busA, busB := NewBus(co, log), NewBus(co, log)
	run(busA)
	run(busB)
	keysA, keysB, hostsB := New[int]("keys", busA), New[int]("keys", busB), New[int]("hosts", busB)
	reads := 0
	keysB.Get(ctx, "k", counter(&reads))
	hostsB.Get(ctx, "k", counter(&reads))
	keysA.Forget(ctx, "k")
	eventually.True(t, 5*time.Second, "the other instance dropping the forgotten key", func() bool { return keysB.Len() == 0 })
	if hostsB.Len() != 1 {
		t.Fatal("a forget of one cache dropped another cache's entry")
	}
}

func FuzzApply(f *testing.F) {
	f.Add("keys\nabc")
	f.Add("nothing")
	f.Add("\n")
	b := NewBus(inproc.New(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	c := New[int]("keys", b)
	f.Fuzz(func(t *testing.T, msg string) {
		b.apply(msg) // never panics, whatever arrives on the channel
		_ = c.Len()
	})
}
