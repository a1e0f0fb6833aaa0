package sqldb

import (
	"context"

	"hostgate/internal/accounts"
	"hostgate/internal/l1gate"
)

var _ l1gate.Store = (*DB)(nil)

// HostsByBID returns every undeleted host with bid, of any user, with its
// owner's state and sealed secret, oldest first.
func (d *DB) HostsByBID(ctx context.Context, bid int64) ([]l1gate.Candidate, error) {
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
