package eventually

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestWithinSeesAConditionThatComesTrue(t *testing.T) {
	var n atomic.Int32
	go func() {
		for range 3 {
			n.Add(1)
		}
	}()
	if !Within(5*time.Second, func() bool { return n.Load() == 3 }) {
		t.Fatal("Within: false for a condition that came true")
	}
}

func TestWithinGivesUpAtTheLimit(t *testing.T) {
	start := time.Now()
	calls := 0
	if Within(30*time.Millisecond, func() bool { calls++; return false }) {
		t.Fatal("Within: true for a condition that never holds")
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("gave up after %v, before the limit", d)
	}
	if calls < 2 {
		t.Errorf("checked %d times, want at least the first and one after the limit", calls)
	}
}

func TestWithinChecksAtOnce(t *testing.T) {
	if !Within(0, func() bool { return true }) {
		t.Fatal("Within(0): false for a condition that holds")
	}
}

// fakeTB records a failure instead of stopping the test.
type fakeTB struct {
	testing.TB
	failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = format
}

func TestTrueAndErrorFailNamingWhat(t *testing.T) {
	f := &fakeTB{TB: t}
	True(f, time.Millisecond, "the thing", func() bool { return false })
	if f.failed == "" {
		t.Error("True did not fail for a condition that never holds")
	}
	f = &fakeTB{TB: t}
	Error(f, time.Millisecond, "the call", func() error { return errors.New("no") })
	if f.failed == "" {
		t.Error("Error did not fail for a call that keeps failing")
	}
	f = &fakeTB{TB: t}
	Error(f, time.Second, "the call", func() error { return nil })
	if f.failed != "" {
		t.Error("Error failed for a call that succeeds")
	}
}
