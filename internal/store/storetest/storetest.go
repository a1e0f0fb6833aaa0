// Package storetest is the contract suite for store.Store: every engine
// runs it, so every engine behaves the same, concurrency included.
package storetest

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/store"
)

// opener returns a fresh, empty, migrated store for one test and closes it
// at t.Cleanup.
type opener = func(t *testing.T) store.Store

// test is one contract test on its own fresh store.
type test struct {
	name string
	run  func(t *testing.T, s store.Store)
}

// Run runs the whole contract against the stores open returns. open must
// return a fresh, empty, migrated store each time, and close it at
// t.Cleanup: every test gets its own.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("accounts", func(t *testing.T) { runAll(t, open, accountsTests) })
	t.Run("admin", func(t *testing.T) { runAll(t, open, adminTests) })
	t.Run("audit", func(t *testing.T) { runAll(t, open, auditTests) })
	t.Run("keys", func(t *testing.T) { runAll(t, open, keysTests) })
	t.Run("reseal", func(t *testing.T) { runAll(t, open, resealTests) })
	t.Run("hosts", func(t *testing.T) { runAll(t, open, hostsTests) })
	t.Run("tags", func(t *testing.T) { runAll(t, open, tagTests) })
	t.Run("apikeys", func(t *testing.T) { runAll(t, open, apikeysTests) })
	t.Run("billing", func(t *testing.T) { runAll(t, open, billingTests) })
	t.Run("recharges", func(t *testing.T) { runAll(t, open, rechargeTests) })
	t.Run("versions", func(t *testing.T) { runAll(t, open, versionTests) })
	t.Run("upgrades", func(t *testing.T) { runAll(t, open, upgradeTests) })
	t.Run("deliveries", func(t *testing.T) { runAll(t, open, deliveryTests) })
	t.Run("schedules", func(t *testing.T) { runAll(t, open, scheduleTests) })
	t.Run("dashboard", func(t *testing.T) { runAll(t, open, dashboardTests) })
	t.Run("l1config", func(t *testing.T) { runAll(t, open, l1configTests) })
	t.Run("l1gate", func(t *testing.T) { runAll(t, open, l1gateTests) })
	t.Run("lockout", func(t *testing.T) { runAll(t, open, lockoutTests) })
	t.Run("jobs", func(t *testing.T) { runAll(t, open, jobTests) })
	t.Run("engine", func(t *testing.T) { runAll(t, open, engineTests) })
	t.Run("keyset", func(t *testing.T) { runAll(t, open, keysetTests) })
}

// runAll runs each test on a store of its own, so none sees another's rows.
func runAll(t *testing.T, open opener, tests []test) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, open(t)) })
	}
}

// t0 is the suite's reference time: nanoseconds and a zone other than UTC,
// so that every round trip also checks truncation and normalisation.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.FixedZone("UTC+1", 3600))

// stored is t as every engine must return it.
func stored(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// checkTime fails unless got is want as stored: equal, UTC, microseconds.
func checkTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(stored(want)) || got.Location() != time.UTC {
		t.Errorf("%s: got %v, want %v (UTC, microseconds)", what, got, stored(want))
	}
}

// checkErr fails unless err is want.
func checkErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

// must fails on any error.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// hashOf is a refresh-token hash for a readable name.
func hashOf(name string) []byte {
	h := sha256.Sum256([]byte(name))
	return h[:]
}

func newID() string { return uuid.NewString() }

// race runs fn n times at once and returns the errors, in no order.
func race(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = fn(i)
		})
	}
	close(start) // release them together, for the most contention
	wg.Wait()
	return errs
}

// countRace sorts race errors: the successes, those that are want, and
// fails on any other.
func countRace(t *testing.T, errs []error, want ...error) int {
	t.Helper()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !isAny(err, want):
			t.Errorf("racing call: got error %v, want nil or one of %v", err, want)
		}
	}
	return ok
}

func isAny(err error, targets []error) bool {
	for _, target := range targets {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// engineTests cover what Store adds to the domain interfaces.
var engineTests = []test{
	{"Name", func(t *testing.T, s store.Store) {
		if n := s.Name(); n != "postgres" && n != "sqlite" {
			t.Errorf("Name: got %q, want postgres or sqlite", n)
		}
	}},
	{"Ping", func(t *testing.T, s store.Store) {
		must(t, "Ping", s.Ping(t.Context()))
	}},
	{"PingUsesCallerContext", func(t *testing.T, s store.Store) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := s.Ping(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Ping with cancelled context: got %v, want context.Canceled", err)
		}
	}},
}
