package sqldb

import (
	"context"
	"database/sql"

	"hostgate/internal/deliveries"
	"hostgate/internal/hosts"
	"hostgate/internal/l1config"
)

var _ l1config.Store = (*DB)(nil)

// UpdateL1 implements l1config.Store. The host row is read with its sealed
// secret and locked (FOR UPDATE on PostgreSQL; SQLite's single writer
// holds the database) before build runs, so the previous secret the
// delivery is signed with is the one this write replaces, even when two
// writes to one host race. A bid clash is found by a look-up in the same
// transaction; a concurrent clash the look-up cannot see (PostgreSQL)
// fails the unique constraint and is reported as ErrBIDTaken as well.
func (d *DB) UpdateL1(ctx context.Context, owner, id string, build l1config.BuildFunc) (hosts.Host, error) {
	var out hosts.Host
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		h, sec, err := d.lockHost(ctx, tx, owner, id)
		if err != nil {
			return err
		}
		ch, del, err := build(h, sec)
		if err != nil {
			return err
		}
		var clash int
		err = tx.QueryRowContext(ctx, `SELECT 1 FROM hosts WHERE user_id = $1 AND bid = $2 AND id <> $3`,
			h.UserID, ch.BID, h.ID).Scan(&clash)
		if err == nil {
			return hosts.ErrBIDTaken
		}
		if err := d.hostResult("check bid", err, nil); err != nil {
			return err
		}
		out, err = scanHost(tx.QueryRowContext(ctx, `UPDATE hosts SET bid = $1, report_url = $2, secret_sealed = $3,
			webhook_format = $4 WHERE id = $5 RETURNING `+hostCols,
			ch.BID, ch.ReportURL, ch.SecretSealed, ch.WebhookFormat, h.ID))
		if d.dialect.IsUniqueViolation(err) {
			return hosts.ErrBIDTaken
		}
		if err != nil {
			return d.errorf("update l1 config", err)
		}
		return d.insertDelivery(ctx, tx, del)
	})
	return out, err
}

// lockHost reads the undeleted host id (the owner's, or any owner's for
// owner "") with its secrets inside tx, locking its row on PostgreSQL;
// hosts.ErrNotFound.
func (d *DB) lockHost(ctx context.Context, tx *sql.Tx, owner, id string) (hosts.Host, hosts.Secrets, error) {
	query := `SELECT ` + hostCols + `, ` + secretCols + ` FROM hosts WHERE id = $1 AND deleted_at IS NULL`
	args := []any{id}
	if owner != "" {
		query += ` AND user_id = $2`
		args = append(args, owner)
	}
	if d.dialect.RowLocks {
		query += " FOR UPDATE"
	}
	h, sec, err := scanHostSecrets(tx.QueryRowContext(ctx, query, args...))
	if err := d.hostResult("lock host", err, hosts.ErrNotFound); err != nil {
		return hosts.Host{}, hosts.Secrets{}, err
	}
	return h, sec, nil
}

// RotateSecret implements l1config.Store: the host is locked and read
// with its current secret before queue runs, then the issuance and the
// delivery are written in the same transaction.
func (d *DB) RotateSecret(ctx context.Context, owner, id string, iss hosts.Issuance,
	queue func(h hosts.Host, sec hosts.Secrets) (deliveries.Delivery, error)) (hosts.Host, hosts.Secrets, error) {
	var (
		out    hosts.Host
		outSec hosts.Secrets
	)
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		h, sec, err := d.lockHost(ctx, tx, owner, id)
		if err != nil {
			return err
		}
		del, err := queue(h, sec)
		if err != nil {
			return err
		}
		if out, outSec, err = d.issue(ctx, tx, owner, id, iss); err != nil {
			return err
		}
		return d.insertDelivery(ctx, tx, del)
	})
	return out, outSec, err
}
