package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/l1gate"
)

// L1Gate is the L1 gate's storage (hosts by bid, nonces), on the shared core.
type L1Gate struct{ d *DB }

var _ l1gate.Store = L1Gate{}

// L1Gate returns the L1 gate's storage (hosts by bid, nonces).
func (d *DB) L1Gate() l1gate.Store { return L1Gate{d} }

// HostsByBID returns every undeleted host with bid, of any user, with its
// owner's state and sealed secret, oldest first.
func (s L1Gate) HostsByBID(ctx context.Context, bid int64) ([]l1gate.Candidate, error) {
	d := s.d
	rows, err := d.read.QueryContext(ctx,
		`SELECT h.id, h.user_id, h.status, u.status, h.secret_sealed
		 FROM hosts h JOIN users u ON u.id = h.user_id
		 WHERE h.bid = $1 AND h.deleted_at IS NULL
		 ORDER BY h.created_at, h.id`, bid)
	if err != nil {
		return nil, d.errorf("hosts by bid", err)
	}
	cs, err := collect(rows, func(r rowScanner) (l1gate.Candidate, error) {
		var c l1gate.Candidate
		var owner accounts.Status
		err := r.Scan(&c.HostID, &c.UserID, (*string)(&c.Status), (*string)(&owner), &c.SecretSealed)
		c.OwnerActive = owner == accounts.StatusActive
		return c, err
	})
	if err != nil {
		return nil, d.errorf("hosts by bid", err)
	}
	return cs, nil
}

// addNonce records a nonce, or takes over its row if that has expired; it
// returns a row only then, so of concurrent calls with one key exactly one
// gets a row: the engine serialises the conflicting inserts, and each later
// one sees the first's unexpired row and updates nothing.
const addNonce = `INSERT INTO l1_nonces (scope, nonce, expires_at) VALUES ($1, $2, $3)
	ON CONFLICT (scope, nonce) DO UPDATE SET expires_at = excluded.expires_at
	WHERE l1_nonces.expires_at <= $4
	RETURNING 1`

// AddNonce records nonce under scope until until and reports whether it
// was absent, or expired, as of now.
func (s L1Gate) AddNonce(ctx context.Context, scope, nonce string, now, until time.Time) (bool, error) {
	d := s.d
	var one int
	err := d.write.QueryRowContext(ctx, addNonce, scope, nonce, d.timeArg(until), d.timeArg(now)).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, d.errorf("add nonce", err)
	}
	return true, nil
}

// PruneNonces deletes at most limit nonces expired at now, oldest first.
func (s L1Gate) PruneNonces(ctx context.Context, now time.Time, limit int) (int, error) {
	d := s.d
	res, err := d.write.ExecContext(ctx,
		`DELETE FROM l1_nonces WHERE (scope, nonce) IN (
			SELECT scope, nonce FROM l1_nonces WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,
		d.timeArg(now), int64(limit))
	if err != nil {
		return 0, d.errorf("prune nonces", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, d.errorf("prune nonces", err)
	}
	return int(n), nil
}
