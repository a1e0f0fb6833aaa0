package lockout_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/lockout"
	"hostgate/internal/store"
	"hostgate/internal/store/sqlite"
)

// newStore opens a real SQLite store, closed when the test ends.
func newStore(t *testing.T) lockout.Store {
	t.Helper()
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "hostgate.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return store.New(db).Lockout
}

// fail records n failed logins of name and checks each answer.
func fail(t *testing.T, g *lockout.Guard, name string, n int) {
	t.Helper()
	for i := range n {
		err := g.Fail(t.Context(), name, "wrong email or password")
		if got := apperr.Code(err); got != apperr.CodeInvalidCreds {
			t.Fatalf("Fail #%d of %q: got code %s (%v), want %s", i+1, name, got, err, apperr.CodeInvalidCreds)
		}
	}
}

func assertOpen(t *testing.T, g *lockout.Guard, name string) {
	t.Helper()
	if err := g.Check(t.Context(), name); err != nil {
		t.Fatalf("Check(%q): got %v, want nil", name, err)
	}
}

func assertLocked(t *testing.T, g *lockout.Guard, name string) {
	t.Helper()
	err := g.Check(t.Context(), name)
	if got := apperr.Code(err); got != apperr.CodeAccountLocked {
		t.Fatalf("Check(%q): got code %s (%v), want %s", name, got, err, apperr.CodeAccountLocked)
	}
}

func TestThreshold(t *testing.T) {
	g := lockout.New(newStore(t), lockout.Default, "user")
	assertOpen(t, g, "alice@example.com")
	fail(t, g, "alice@example.com", 4)
	assertOpen(t, g, "alice@example.com")
	fail(t, g, "alice@example.com", 1)
	assertLocked(t, g, "alice@example.com")
	// Locked stays locked, whatever else happens.
	fail(t, g, "alice@example.com", 1)
	assertLocked(t, g, "alice@example.com")
	if err := g.Succeed(t.Context(), "alice@example.com"); err != nil {
		t.Fatalf("Succeed: got %v, want nil", err)
	}
	assertLocked(t, g, "alice@example.com")
}

func TestSucceedResetsFailures(t *testing.T) {
	g := lockout.New(newStore(t), lockout.Default, "user")
	fail(t, g, "alice@example.com", 3)
	if err := g.Succeed(t.Context(), "alice@example.com"); err != nil {
		t.Fatalf("Succeed: got %v, want nil", err)
	}
	fail(t, g, "alice@example.com", 4)
	assertOpen(t, g, "alice@example.com")
	fail(t, g, "alice@example.com", 1)
	assertLocked(t, g, "alice@example.com")
}

func TestCountersAreSeparate(t *testing.T) {
	st := newStore(t)
	users := lockout.New(st, lockout.Default, "user")
	admins := lockout.New(st, lockout.Default, "admin")

	fail(t, users, "alice@example.com", 5)
	assertLocked(t, users, "alice@example.com")
	assertOpen(t, users, "bob@example.com")
	assertOpen(t, users, "Alice@example.com") // names arrive normalised; the guard compares bytes
	assertOpen(t, admins, "alice@example.com")

	// Failures of one name or kind do not add up with another's.
	fail(t, users, "bob@example.com", 4)
	fail(t, admins, "bob@example.com", 4)
	fail(t, users, "carol@example.com", 4)
	assertOpen(t, users, "bob@example.com")
	assertOpen(t, admins, "bob@example.com")
	fail(t, admins, "bob@example.com", 1)
	assertLocked(t, admins, "bob@example.com")
	assertOpen(t, users, "bob@example.com")
}

func TestFailMessage(t *testing.T) {
	g := lockout.New(newStore(t), lockout.Default, "user")
	for i := range 6 { // the threshold is reached on the 5th; every answer is alike
		msg := "invalid email or password #" + string(rune('a'+i))
		err := g.Fail(t.Context(), "alice@example.com", msg)
		var ae *apperr.Error
		if !errors.As(err, &ae) {
			t.Fatalf("Fail #%d: got %T %v, want *apperr.Error", i+1, err, err)
		}
		if ae.Code != apperr.CodeInvalidCreds || ae.Message != msg {
			t.Errorf("Fail #%d: got %s %q, want %s %q", i+1, ae.Code, ae.Message, apperr.CodeInvalidCreds, msg)
		}
	}
}

func TestLockExpires(t *testing.T) {
	p := lockout.Policy{Threshold: 2, Window: time.Hour, LockFor: time.Minute}
	g, clock := guardWithClock(newStore(t), p)
	fail(t, g, "alice@example.com", 2)
	assertLocked(t, g, "alice@example.com")
	clock.add(59 * time.Second)
	assertLocked(t, g, "alice@example.com")
	clock.add(2 * time.Second)
	assertOpen(t, g, "alice@example.com")
	// The counter restarted when the lock was set.
	fail(t, g, "alice@example.com", 1)
	assertOpen(t, g, "alice@example.com")
}

// TestSurvivesANewGuard: the count and the lock are the store's, so a
// guard made afresh on the same store (a restarted hub) still sees them.
func TestSurvivesANewGuard(t *testing.T) {
	st := newStore(t)
	fail(t, lockout.New(st, lockout.Default, "user"), "alice@example.com", 4)
	g := lockout.New(st, lockout.Default, "user")
	assertOpen(t, g, "alice@example.com")
	fail(t, g, "alice@example.com", 1)
	assertLocked(t, lockout.New(st, lockout.Default, "user"), "alice@example.com")
}

func TestPrune(t *testing.T) {
	st := newStore(t)
	p := lockout.Policy{Threshold: 2, Window: time.Minute, LockFor: time.Minute}
	g, clock := guardWithClock(st, p)
	fail(t, g, "alice@example.com", 1)
	fail(t, g, "bob@example.com", 2)
	if err := g.Prune(t.Context()); err != nil {
		t.Fatalf("Prune: %v", err)
	}
	assertLocked(t, g, "bob@example.com")
	clock.add(2*time.Minute + time.Second)
	if err := g.Prune(t.Context()); err != nil {
		t.Fatalf("Prune: %v", err)
	}
	for _, name := range []string{"alice@example.com", "bob@example.com"} {
		if until, err := st.LoginLockedUntil(t.Context(), "user", hashed(name)); err != nil || !until.IsZero() {
			t.Errorf("%s after the prune: locked until %v, %v; want no row", name, until, err)
		}
	}
}

// testClock is a settable time for a guard.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) read() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// guardWithClock returns a guard whose time moves only by clock.add.
func guardWithClock(st lockout.Store, p lockout.Policy) (*lockout.Guard, *testClock) {
	g := lockout.New(st, p, "user")
	c := &testClock{now: time.Now()}
	lockout.SetNow(g, c.read)
	return g, c
}

func hashed(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:16])
}

// recorder is a lockout.Store that notes every name it is given.
type recorder struct {
	lockout.Store
	mu    sync.Mutex
	names []string
	err   error // returned by every call when set
}

func (r *recorder) note(kind, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, kind+":"+name)
	return r.err
}

func (r *recorder) LoginLockedUntil(ctx context.Context, kind, name string) (time.Time, error) {
	if err := r.note(kind, name); err != nil {
		return time.Time{}, err
	}
	return r.Store.LoginLockedUntil(ctx, kind, name)
}

func (r *recorder) RecordLoginFailure(ctx context.Context, kind, name string, now time.Time, p lockout.Policy) error {
	if err := r.note(kind, name); err != nil {
		return err
	}
	return r.Store.RecordLoginFailure(ctx, kind, name, now, p)
}

func (r *recorder) ClearLoginFailures(ctx context.Context, kind, name string, now time.Time) error {
	if err := r.note(kind, name); err != nil {
		return err
	}
	return r.Store.ClearLoginFailures(ctx, kind, name, now)
}

func TestStoredNamesAreHashed(t *testing.T) {
	rec := &recorder{Store: newStore(t)}
	g := lockout.New(rec, lockout.Default, "user")
	const name = "Alice.Example@example.com"

	assertOpen(t, g, name)
	fail(t, g, name, 5)
	assertLocked(t, g, name)
	if err := g.Succeed(t.Context(), name); err != nil {
		t.Fatalf("Succeed: got %v, want nil", err)
	}

	if len(rec.names) == 0 {
		t.Fatal("names: got none recorded, want the guard to use the store")
	}
	for _, k := range rec.names {
		if k != "user:"+hashed(name) {
			t.Errorf("stored name: got %q, want user:<sha256 of the name>", k)
		}
		for _, part := range []string{name, strings.ToLower(name), "alice", "Alice", "example"} {
			if strings.Contains(k, part) {
				t.Errorf("stored name %q: got it containing %q, want no part of the name", k, part)
			}
		}
	}
}

func TestStoreErrorsPassThrough(t *testing.T) {
	boom := errors.New("store is down")
	rec := &recorder{Store: newStore(t), err: boom}
	g := lockout.New(rec, lockout.Default, "user")
	if err := g.Check(t.Context(), "alice@example.com"); !errors.Is(err, boom) {
		t.Errorf("Check with a failing store: got %v, want %v", err, boom)
	}
	// A failing store must not turn into a plain "wrong password" answer
	// that hides the lockout being off.
	if err := g.Fail(t.Context(), "alice@example.com", "wrong"); !errors.Is(err, boom) {
		t.Errorf("Fail with a failing store: got %v, want %v", err, boom)
	}
	if err := g.Succeed(t.Context(), "alice@example.com"); !errors.Is(err, boom) {
		t.Errorf("Succeed with a failing store: got %v, want %v", err, boom)
	}
}
