package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"hostgate/internal/lockout"
)

// Lockout is the login lockouts' storage, on the shared core.
type Lockout struct{ d *DB }

var _ lockout.Store = Lockout{}

// Lockout returns the login lockouts' storage.
func (d *DB) Lockout() lockout.Store { return Lockout{d} }

// LoginLockedUntil returns when the name's lock ends; zero when there is
// no row or no lock.
func (s Lockout) LoginLockedUntil(ctx context.Context, kind, name string) (time.Time, error) {
	d := s.d
	var until *time.Time
	err := d.read.QueryRowContext(ctx,
		`SELECT locked_until FROM login_lockouts WHERE kind = $1 AND name_hash = $2`,
		kind, name).Scan(nullTimeDest{&until})
	if errors.Is(err, sql.ErrNoRows) || until == nil {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, d.errorf("read login lockout", err)
	}
	return *until, nil
}

// recordFailure counts one failure. Every SET expression sees the row as
// it was, so "stale" ($6: the window began at or before now-Window) and
// "reaches the threshold" ($7) are decided on the old values; $3 and $5
// are a fresh count and its lock (a lock only when the threshold is 1).
const recordFailure = `INSERT INTO login_lockouts (kind, name_hash, failures, window_start, locked_until)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (kind, name_hash) DO UPDATE SET
    failures = CASE
        WHEN login_lockouts.window_start <= $6 THEN $3
        WHEN login_lockouts.failures + 1 >= $7 THEN 0
        ELSE login_lockouts.failures + 1 END,
    window_start = CASE
        WHEN login_lockouts.window_start <= $6 THEN $4
        ELSE login_lockouts.window_start END,
    locked_until = CASE
        WHEN login_lockouts.window_start <= $6 THEN COALESCE($5, login_lockouts.locked_until)
        WHEN login_lockouts.failures + 1 >= $7 THEN $8
        ELSE login_lockouts.locked_until END`

// RecordLoginFailure counts a failure at now in one statement, so
// concurrent failures of one name on any number of instances all count.
func (s Lockout) RecordLoginFailure(ctx context.Context, kind, name string, now time.Time, p lockout.Policy) error {
	d := s.d
	lockEnd := d.timeArg(now.Add(p.LockFor))
	first, firstLock := int64(1), any(nil)
	if p.Threshold <= 1 {
		first, firstLock = 0, lockEnd
	}
	_, err := d.write.ExecContext(ctx, recordFailure,
		kind, name, first, d.timeArg(now), firstLock, d.timeArg(now.Add(-p.Window)), p.Threshold, lockEnd)
	if err != nil {
		return d.errorf("record login failure", err)
	}
	return nil
}

// ClearLoginFailures deletes the name's row unless it is locked at now.
func (s Lockout) ClearLoginFailures(ctx context.Context, kind, name string, now time.Time) error {
	d := s.d
	_, err := d.write.ExecContext(ctx,
		`DELETE FROM login_lockouts WHERE kind = $1 AND name_hash = $2
		 AND (locked_until IS NULL OR locked_until <= $3)`,
		kind, name, d.timeArg(now))
	if err != nil {
		return d.errorf("clear login failures", err)
	}
	return nil
}

// PruneLoginLockouts deletes the rows of kind whose window began before
// windowsFrom and whose lock, if any, has ended by now.
func (s Lockout) PruneLoginLockouts(ctx context.Context, kind string, windowsFrom, now time.Time) error {
	d := s.d
	_, err := d.write.ExecContext(ctx,
		`DELETE FROM login_lockouts WHERE kind = $1 AND window_start < $2
		 AND (locked_until IS NULL OR locked_until <= $3)`,
		kind, d.timeArg(windowsFrom), d.timeArg(now))
	if err != nil {
		return d.errorf("prune login lockouts", err)
	}
	return nil
}
