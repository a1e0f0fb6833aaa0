// Package eventually waits, in tests, for a condition to hold: the one
// way the tests wait for something another goroutine or process does,
// instead of sleeping for a guessed time. It is imported only by tests.
package eventually

import (
	"testing"
	"time"
)

// Poll intervals: the first check is at once, the next after minPoll, and
// the interval doubles up to maxPoll, so a condition that holds soon is
// seen soon and a slow one costs few checks.
const (
	minPoll = time.Millisecond
	maxPoll = 50 * time.Millisecond
)

// True waits up to limit for cond to hold and fails t, naming what, if it
// does not.
func True(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Within(limit, cond) {
		t.Fatalf("%s: not within %v", what, limit)
	}
}

// Within waits up to limit for cond to hold and reports whether it did.
func Within(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	wait := minPoll
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		timer.Reset(min(wait, left))
		<-timer.C
		wait = min(2*wait, maxPoll)
	}
}

// Error waits up to limit for f to return nil and fails t with what and
// f's last error if it does not.
func Error(t testing.TB, limit time.Duration, what string, f func() error) {
	t.Helper()
	var err error
	if !Within(limit, func() bool { err = f(); return err == nil }) {
		t.Fatalf("%s: not within %v (last error: %v)", what, limit, err)
	}
}
