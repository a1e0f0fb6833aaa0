package storetest

import (
	"fmt"
	"testing"
	"time"

	"hostgate/internal/lockout"
	"hostgate/internal/store"
)

var lockoutTests = []test{
	{"CountLockAndExpire", testLockoutCount},
	{"WindowRestartsCount", testLockoutWindow},
	{"ClearKeepsALock", testLockoutClear},
	{"KindsAndNamesApart", testLockoutApart},
	{"ConcurrentFailuresAllCount", testLockoutRace},
	{"Prune", testLockoutPrune},
}

var lockPolicy = lockout.Policy{Threshold: 3, Window: 10 * time.Minute, LockFor: 5 * time.Minute}

// failAt records n failures of name, a second apart from at.
func failAt(t *testing.T, s store.Store, kind, name string, at time.Time, n int) {
	t.Helper()
	for i := range n {
		must(t, "RecordLoginFailure", s.Lockout.RecordLoginFailure(t.Context(), kind, name, at.Add(time.Duration(i)*time.Second), lockPolicy))
	}
}

// checkLock fails unless the name's lock ends at want (zero: no lock).
func checkLock(t *testing.T, s store.Store, what, kind, name string, want time.Time) {
	t.Helper()
	got, err := s.Lockout.LoginLockedUntil(t.Context(), kind, name)
	must(t, what+": LoginLockedUntil", err)
	if want.IsZero() {
		if !got.IsZero() {
			t.Errorf("%s: locked until %v, want no lock", what, got)
		}
		return
	}
	checkTime(t, what, got, want)
}

func testLockoutCount(t *testing.T, s store.Store) {
	checkLock(t, s, "unknown name", "user", "n1", time.Time{})
	failAt(t, s, "user", "n1", t0, 2)
	checkLock(t, s, "below the threshold", "user", "n1", time.Time{})
	third := t0.Add(time.Minute)
	failAt(t, s, "user", "n1", third, 1)
	checkLock(t, s, "at the threshold", "user", "n1", third.Add(lockPolicy.LockFor))
	// The count started again at the lock: two more do not lock again.
	failAt(t, s, "user", "n1", third.Add(time.Second), 2)
	checkLock(t, s, "two after the lock", "user", "n1", third.Add(lockPolicy.LockFor))
	later := third.Add(2 * time.Second)
	failAt(t, s, "user", "n1", later, 1)
	checkLock(t, s, "three after the lock", "user", "n1", later.Add(lockPolicy.LockFor))
}

func testLockoutWindow(t *testing.T, s store.Store) {
	failAt(t, s, "user", "n1", t0, 2)
	// The window began at the first failure; at its end the count restarts.
	failAt(t, s, "user", "n1", t0.Add(lockPolicy.Window), 2)
	checkLock(t, s, "two and two across the window", "user", "n1", time.Time{})
	at := t0.Add(lockPolicy.Window + time.Minute)
	failAt(t, s, "user", "n1", at, 1)
	checkLock(t, s, "third in the new window", "user", "n1", at.Add(lockPolicy.LockFor))

	lone := lockout.Policy{Threshold: 1, Window: time.Minute, LockFor: time.Minute}
	must(t, "RecordLoginFailure", s.Lockout.RecordLoginFailure(t.Context(), "user", "n2", t0, lone))
	checkLock(t, s, "threshold of one", "user", "n2", t0.Add(time.Minute))
}

func testLockoutClear(t *testing.T, s store.Store) {
	failAt(t, s, "user", "n1", t0, 2)
	must(t, "ClearLoginFailures", s.Lockout.ClearLoginFailures(t.Context(), "user", "n1", t0.Add(time.Minute)))
	failAt(t, s, "user", "n1", t0.Add(2*time.Minute), 2)
	checkLock(t, s, "two, cleared, two", "user", "n1", time.Time{})

	failAt(t, s, "user", "n2", t0, 3)
	must(t, "ClearLoginFailures while locked", s.Lockout.ClearLoginFailures(t.Context(), "user", "n2", t0.Add(time.Minute)))
	checkLock(t, s, "cleared while locked", "user", "n2", t0.Add(2*time.Second+lockPolicy.LockFor))
	must(t, "ClearLoginFailures after the lock", s.Lockout.ClearLoginFailures(t.Context(), "user", "n2", t0.Add(time.Hour)))
	checkLock(t, s, "cleared after the lock", "user", "n2", time.Time{})
}

func testLockoutApart(t *testing.T, s store.Store) {
	failAt(t, s, "user", "n1", t0, 2)
	failAt(t, s, "admin", "n1", t0, 2)
	failAt(t, s, "user", "n2", t0, 2)
	for _, k := range [][2]string{{"user", "n1"}, {"admin", "n1"}, {"user", "n2"}} {
		checkLock(t, s, k[0]+" "+k[1]+" after two", k[0], k[1], time.Time{})
	}
	failAt(t, s, "admin", "n1", t0.Add(time.Minute), 1)
	checkLock(t, s, "admin n1 after three", "admin", "n1", t0.Add(time.Minute+lockPolicy.LockFor))
	checkLock(t, s, "user n1 stays open", "user", "n1", time.Time{})
}

func testLockoutRace(t *testing.T, s store.Store) {
	p := lockout.Policy{Threshold: 20, Window: time.Hour, LockFor: time.Hour}
	errs := race(19, func(int) error { return s.Lockout.RecordLoginFailure(t.Context(), "user", "n1", t0, p) })
	for i, err := range errs {
		must(t, fmt.Sprint("racing failure ", i), err)
	}
	checkLock(t, s, "after 19 racing failures", "user", "n1", time.Time{})
	must(t, "20th failure", s.Lockout.RecordLoginFailure(t.Context(), "user", "n1", t0, p))
	checkLock(t, s, "after the 20th", "user", "n1", t0.Add(time.Hour))
}

func testLockoutPrune(t *testing.T, s store.Store) {
	failAt(t, s, "user", "old", t0, 1)
	failAt(t, s, "user", "locked", t0, 3)
	failAt(t, s, "user", "new", t0.Add(time.Hour), 1)
	failAt(t, s, "admin", "old", t0, 3)
	// At t0+30m: "old"'s window is over and "locked"'s lock too.
	must(t, "PruneLoginLockouts", s.Lockout.PruneLoginLockouts(t.Context(), "user", t0.Add(20*time.Minute), t0.Add(30*time.Minute)))
	failAt(t, s, "user", "old", t0.Add(31*time.Minute), 2)
	checkLock(t, s, "pruned name counts from zero", "user", "old", time.Time{})
	checkLock(t, s, "pruned lock", "user", "locked", time.Time{})
	failAt(t, s, "user", "new", t0.Add(time.Hour+time.Minute), 2)
	checkLock(t, s, "kept count", "user", "new", t0.Add(time.Hour+time.Minute+time.Second+lockPolicy.LockFor))
	checkLock(t, s, "other kind kept", "admin", "old", t0.Add(2*time.Second+lockPolicy.LockFor))

	// A lock still running is kept whatever its window.
	failAt(t, s, "user", "long", t0, 3)
	must(t, "PruneLoginLockouts", s.Lockout.PruneLoginLockouts(t.Context(), "user", t0.Add(time.Hour), t0.Add(time.Minute)))
	checkLock(t, s, "running lock", "user", "long", t0.Add(2*time.Second+lockPolicy.LockFor))
}
