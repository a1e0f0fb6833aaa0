package lockout_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/coord"
	"hostgate/internal/coord/inproc"
	"hostgate/internal/lockout"
)

func newCoord(t *testing.T) *inproc.Coord {
	t.Helper()
	c := inproc.New()
	t.Cleanup(func() { _ = c.Close() })
	return c
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
	g := lockout.New(newCoord(t), lockout.Default, "user")
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
	g := lockout.New(newCoord(t), lockout.Default, "user")
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
	c := newCoord(t)
	users := lockout.New(c, lockout.Default, "user")
	admins := lockout.New(c, lockout.Default, "admin")

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
	g := lockout.New(newCoord(t), lockout.Default, "user")
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
	p := lockout.Policy{Threshold: 2, Window: time.Minute, LockFor: 50 * time.Millisecond}
	g := lockout.New(newCoord(t), p, "user")
	fail(t, g, "alice@example.com", 2)
	assertLocked(t, g, "alice@example.com")
	time.Sleep(100 * time.Millisecond)
	assertOpen(t, g, "alice@example.com")
	// The counter restarted when the lock was set.
	fail(t, g, "alice@example.com", 1)
	assertOpen(t, g, "alice@example.com")
}

// recorder is a coord.Coord that notes every key it is given.
type recorder struct {
	coord.Coord
	mu   sync.Mutex
	keys []string
	err  error // returned by every call when set
}

func (r *recorder) note(key string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, key)
	return r.err
}

func (r *recorder) SetFlag(ctx context.Context, key string, ttl time.Duration) error {
	if err := r.note(key); err != nil {
		return err
	}
	return r.Coord.SetFlag(ctx, key, ttl)
}

func (r *recorder) HasFlag(ctx context.Context, key string) (bool, error) {
	if err := r.note(key); err != nil {
		return false, err
	}
	return r.Coord.HasFlag(ctx, key)
}

func (r *recorder) Incr(ctx context.Context, key string, window time.Duration) (int64, error) {
	if err := r.note(key); err != nil {
		return 0, err
	}
	return r.Coord.Incr(ctx, key, window)
}

func (r *recorder) ResetCount(ctx context.Context, key string) error {
	if err := r.note(key); err != nil {
		return err
	}
	return r.Coord.ResetCount(ctx, key)
}

func TestKeysHideTheName(t *testing.T) {
	inner := newCoord(t)
	rec := &recorder{Coord: inner}
	g := lockout.New(rec, lockout.Default, "user")
	const name = "Alice.Example@example.com"

	assertOpen(t, g, name)
	fail(t, g, name, 5)
	assertLocked(t, g, name)
	if err := g.Succeed(t.Context(), name); err != nil {
		t.Fatalf("Succeed: got %v, want nil", err)
	}

	if len(rec.keys) == 0 {
		t.Fatal("keys: got none recorded, want the guard to use the coord")
	}
	for _, k := range rec.keys {
		for _, part := range []string{name, strings.ToLower(name), "alice", "Alice", "example"} {
			if strings.Contains(k, part) {
				t.Errorf("key %q: got it containing %q, want no part of the name", k, part)
			}
		}
	}

	sum := sha256.Sum256([]byte(name))
	id := hex.EncodeToString(sum[:16])
	locked, err := inner.HasFlag(t.Context(), "login:lock:user:"+id)
	if err != nil || !locked {
		t.Errorf("HasFlag(login:lock:user:<sha256 of name>): got %v, %v, want true, nil", locked, err)
	}
	for _, k := range rec.keys {
		if k != "login:lock:user:"+id && k != "login:fail:user:"+id {
			t.Errorf("key: got %q, want login:lock:user:%s or login:fail:user:%s", k, id, id)
		}
	}
}

func TestCoordErrorsPassThrough(t *testing.T) {
	boom := errors.New("coord is down")
	rec := &recorder{Coord: newCoord(t), err: boom}
	g := lockout.New(rec, lockout.Default, "user")
	if err := g.Check(t.Context(), "alice@example.com"); !errors.Is(err, boom) {
		t.Errorf("Check with a failing coord: got %v, want %v", err, boom)
	}
	// A failing coord must not turn into a plain "wrong password" answer that
	// hides the lockout being off.
	if err := g.Fail(t.Context(), "alice@example.com", "wrong"); !errors.Is(err, boom) {
		t.Errorf("Fail with a failing coord: got %v, want %v", err, boom)
	}
	if err := g.Succeed(t.Context(), "alice@example.com"); !errors.Is(err, boom) {
		t.Errorf("Succeed with a failing coord: got %v, want %v", err, boom)
	}
}
