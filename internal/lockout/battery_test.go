package lockout_test

import (
	"testing"
	"time"

	"hostgate/internal/battery"
	"hostgate/internal/lockout"
	"hostgate/internal/pgtest"
	"hostgate/internal/store"
	"hostgate/internal/store/postgres"
)

// TestBatteryLockoutWindow: with the default policy (5 failures in 15
// minutes lock for 15 minutes, docs/accounts.md "Lockout"), five failures
// inside the window lock the name, the right password included, until 15
// minutes pass; five failures spread over 16 minutes lock nothing. The
// guard never learns whether the name exists, so an unknown email is
// counted alike (the HTTP side: TestLoginFailuresLookAlikeAndLock). On
// SQLite and PostgreSQL.
func TestBatteryLockoutWindow(t *testing.T) {
	engines := map[string]func(t *testing.T) lockout.Store{
		"sqlite": newStore,
		"postgres": func(t *testing.T) lockout.Store {
			db, err := postgres.Open(t.Context(), pgtest.NewDatabase(t))
			if err != nil {
				t.Fatalf("open store: %v", err)
			}
			t.Cleanup(func() { _ = db.Close() })
			return store.New(db).Lockout
		},
	}
	for engine, open := range engines {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			g, clock := guardWithClock(open(t), lockout.Default)
			// Five failures, one every three minutes: locked at the fifth.
			for range 4 {
				fail(t, g, "alice@example.com", 1)
				clock.add(3 * time.Minute)
			}
			assertOpen(t, g, "alice@example.com")
			fail(t, g, "alice@example.com", 1)
			assertLocked(t, g, "alice@example.com") // Check comes before the password: the right one too
			clock.add(15*time.Minute - time.Second)
			assertLocked(t, g, "alice@example.com")
			clock.add(2 * time.Second)
			assertOpen(t, g, "alice@example.com")

			// Spread over 16 minutes (0, 4, 8, 12, 16): no lock.
			for i := range 5 {
				if i > 0 {
					clock.add(4 * time.Minute)
				}
				fail(t, g, "bob@example.com", 1)
			}
			assertOpen(t, g, "bob@example.com")
			battery.Report(t, "T29", "5 failures in 12 min → locked (423 account_locked before any password check) for 15 min: locked at 14:59, open at 15:01; 5 failures over 16 min → not locked (%s)", engine)
		})
	}
}
