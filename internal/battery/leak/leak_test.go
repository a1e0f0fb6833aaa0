package leak

import (
	"strings"
	"testing"
	"time"
)

// TestFindsALeakAndItsEnd: a goroutine blocked past the wait is found,
// named by where it was started; once it ends nothing is.
func TestFindsALeakAndItsEnd(t *testing.T) {
	before := Current()
	stop := make(chan struct{})
	started := make(chan struct{})
	go func() { close(started); <-stop }()
	<-started
	left := Find(before, 20*time.Millisecond)
	if len(left) != 1 || !strings.Contains(left[0].Origin(), "TestFindsALeakAndItsEnd") {
		t.Fatalf("found %s", Describe(left, 5))
	}
	if d := Describe(left, 5); !strings.Contains(d, "1 goroutines leaked") || !strings.Contains(d, "[chan receive]") {
		t.Fatalf("description lacks the count or the stack:\n%s", d)
	}
	close(stop)
	if left := Find(before, Wait); len(left) != 0 {
		t.Fatalf("after the goroutine ended: %s", Describe(left, 5))
	}
}

// TestCheckWaitsForLateGoroutines: Check waits for goroutines that end
// after the test's cleanups, and a tracked test's Then sees the peak.
func TestCheckWaitsForLateGoroutines(t *testing.T) {
	var got Result
	t.Run("inner", func(t *testing.T) {
		tr := Check(t)
		tr.Then(func(r Result) { got = r })
		stop := make(chan struct{})
		for range 3 {
			go func() { <-stop }()
		}
		if n := tr.Note(); n < 3 {
			t.Fatalf("Note = %d, want at least 3", n)
		}
		t.Cleanup(func() { time.AfterFunc(30*time.Millisecond, func() { close(stop) }) })
	})
	if got.Peak < 3 || got.Settled <= 0 {
		t.Fatalf("result %+v, want peak ≥ 3 and a wait", got)
	}
}

func TestParseHeader(t *testing.T) {
	g, ok := parse("goroutine 42 [select, 2 minutes]:\nmain.f(0x1)\n\t/x/main.go:3 +0x1\ncreated by main.g in goroutine 1\n\t/x/main.go:9 +0x2")
	if !ok || g.ID != 42 || g.State != "select, 2 minutes" || g.Top() != "main.f" || g.Origin() != "main.g" {
		t.Fatalf("parse = %+v ok=%v top=%q origin=%q", g, ok, g.Top(), g.Origin())
	}
	if _, ok := parse("not a goroutine"); ok {
		t.Fatal("parsed garbage")
	}
}
