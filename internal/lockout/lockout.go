// Package lockout counts failed logins per account name and locks the name
// for a while once too many fail. The counter belongs to the name, not the
// client address, so spreading guesses over many addresses does not help;
// names that do not exist are counted the same way, so the answers do not
// reveal which accounts exist.
//
// Counts and locks are kept in the store, so a restart of the hub or of
// coordination neither unlocks a name nor forgets its failures.
package lockout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"hostgate/internal/apperr"
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

// Store is what package lockout needs from storage. Names arrive hashed
// (Guard.id), so no email or username is stored.
type Store interface {
	// LoginLockedUntil returns when the lock on the name ends: the zero
	// time when the name was never locked (or its row was pruned).
	LoginLockedUntil(ctx context.Context, kind, name string) (time.Time, error)
	// RecordLoginFailure counts a failure at now in one atomic statement:
	// a count whose window began at or before now-p.Window starts again
	// at one; a count reaching p.Threshold locks the name until
	// now+p.LockFor and starts again at zero.
	RecordLoginFailure(ctx context.Context, kind, name string, now time.Time, p Policy) error
	// ClearLoginFailures forgets the name's failures, unless it is locked
	// at now.
	ClearLoginFailures(ctx context.Context, kind, name string, now time.Time) error
	// PruneLoginLockouts deletes the rows of kind whose window began
	// before windowsFrom and whose lock, if any, ended by now.
	PruneLoginLockouts(ctx context.Context, kind string, windowsFrom, now time.Time) error
}

// Guard applies a policy to one kind of account ("user", "admin").
type Guard struct {
	store  Store
	policy Policy
	kind   string
	now    func() time.Time
}

// New returns a guard for account names of the given kind.
func New(st Store, p Policy, kind string) *Guard {
	return &Guard{store: st, policy: p, kind: kind, now: time.Now}
}

// Check refuses a locked name with account_locked, before any password check.
func (g *Guard) Check(ctx context.Context, name string) error {
	until, err := g.store.LoginLockedUntil(ctx, g.kind, id(name))
	if err != nil {
		return err
	}
	if g.now().Before(until) {
		return locked()
	}
	return nil
}

// Fail counts a failed login, locks the name at the threshold, and returns
// the invalid_credentials error to answer with.
func (g *Guard) Fail(ctx context.Context, name, message string) error {
	if err := g.store.RecordLoginFailure(ctx, g.kind, id(name), g.now(), g.policy); err != nil {
		return err
	}
	return apperr.New(apperr.CodeInvalidCreds, message)
}

// Succeed forgets earlier failures of a name after a correct password.
func (g *Guard) Succeed(ctx context.Context, name string) error {
	return g.store.ClearLoginFailures(ctx, g.kind, id(name), g.now())
}

// Prune deletes the counts and locks of this kind that no longer matter:
// their window and their lock are both over. Every lock ends at most
// Window+LockFor after its window began.
func (g *Guard) Prune(ctx context.Context) error {
	now := g.now()
	return g.store.PruneLoginLockouts(ctx, g.kind, now.Add(-g.policy.Window-g.policy.LockFor), now)
}

func locked() error {
	return apperr.New(apperr.CodeAccountLocked, "too many failed logins; try again later")
}

// id is what the store keeps of a name: a hash, so no email or username
// is stored in the clear.
func id(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:16])
}
