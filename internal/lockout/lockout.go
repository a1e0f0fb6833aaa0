// Package lockout counts failed logins per account name and locks the name
// for a while once too many fail. The counter belongs to the name, not the
// client address, so spreading guesses over many addresses does not help;
// names that do not exist are counted the same way, so the answers do not
// reveal which accounts exist.
package lockout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/coord"
)

// Policy says how many failures within Window lock a name, and for how long.
type Policy struct {
	Threshold int64
	Window    time.Duration
	LockFor   time.Duration
}

// Default: 5 failures within 15 minutes lock the name for 15 minutes, so at
// most 20 guesses an hour reach the password check.
var Default = Policy{Threshold: 5, Window: 15 * time.Minute, LockFor: 15 * time.Minute}

// Guard applies a policy to one kind of account ("user", "admin").
type Guard struct {
	coord  coord.Coord
	policy Policy
	kind   string
}

// New returns a guard for account names of the given kind.
func New(c coord.Coord, p Policy, kind string) *Guard {
	return &Guard{coord: c, policy: p, kind: kind}
}

// Check refuses a locked name with account_locked, before any password check.
func (g *Guard) Check(ctx context.Context, name string) error {
	lock, _ := g.keys(name)
	locked, err := g.coord.HasFlag(ctx, lock)
	if err != nil {
		return err
	}
	if locked {
		return apperr.New(apperr.CodeAccountLocked, "too many failed logins; try again later")
	}
	return nil
}

// Fail counts a failed login, locks the name at the threshold, and returns
// the invalid_credentials error to answer with.
func (g *Guard) Fail(ctx context.Context, name, message string) error {
	lock, fail := g.keys(name)
	n, err := g.coord.Incr(ctx, fail, g.policy.Window)
	if err != nil {
		return err
	}
	if n >= g.policy.Threshold {
		if err := g.coord.SetFlag(ctx, lock, g.policy.LockFor); err != nil {
			return err
		}
		if err := g.coord.ResetCount(ctx, fail); err != nil {
			return err
		}
	}
	return apperr.New(apperr.CodeInvalidCreds, message)
}

// Succeed forgets earlier failures of a name after a correct password.
func (g *Guard) Succeed(ctx context.Context, name string) error {
	_, fail := g.keys(name)
	return g.coord.ResetCount(ctx, fail)
}

// keys are derived from a hash so no email or username appears in
// coordination storage.
func (g *Guard) keys(name string) (lock, fail string) {
	sum := sha256.Sum256([]byte(name))
	id := hex.EncodeToString(sum[:16])
	return "login:lock:" + g.kind + ":" + id, "login:fail:" + g.kind + ":" + id
}
