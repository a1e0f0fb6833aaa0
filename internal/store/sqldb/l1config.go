package sqldb

import (
	"context"
	"database/sql"
	"errors"

	"hostgate/internal/deliveries"
	"hostgate/internal/hosts"
	"hostgate/internal/l1config"
)

// L1Config is the storage of the hosts' L1 configuration, on the shared
// core.
type L1Config struct{ d *DB }

var (
	_ l1config.Store = L1Config{}
	_ l1config.Tx    = l1configTx{}
)

// L1Config returns the storage of the hosts' L1 configuration.
func (d *DB) L1Config() l1config.Store { return L1Config{d} }

// Tx implements l1config.Store.
func (s L1Config) Tx(ctx context.Context, fn func(l1config.Tx) error) error {
	return s.d.unit(ctx, func(t *tx) error { return fn(l1configTx{t}) })
}

// HostByID implements l1config.Store.
func (s L1Config) HostByID(ctx context.Context, id string) (hosts.Host, hosts.Secrets, error) {
	return Hosts(s).HostByID(ctx, id)
}

// l1configTx is the L1 configuration's unit of work.
type l1configTx struct{ *tx }

// LockHost implements l1config.Tx: the row is locked FOR UPDATE on
// PostgreSQL; SQLite's single writer holds the database.
func (t l1configTx) LockHost(ctx context.Context, owner, id string) (hosts.Host, hosts.Secrets, error) {
	query := `SELECT ` + hostCols + `, ` + secretCols + ` FROM hosts WHERE id = $1 AND deleted_at IS NULL`
	args := []any{id}
	if owner != "" {
		query += ` AND user_id = $2`
		args = append(args, owner)
	}
	if t.d.dialect.RowLocks {
		query += " FOR UPDATE"
	}
	h, sec, err := scanHostSecrets(t.tx.tx.QueryRowContext(ctx, query, args...))
	if err := t.d.hostResult("lock host", err, hosts.ErrNotFound); err != nil {
		return hosts.Host{}, hosts.Secrets{}, err
	}
	return h, sec, nil
}

// BIDTaken implements l1config.Tx.
func (t l1configTx) BIDTaken(ctx context.Context, userID string, bid int64, exceptID string) (bool, error) {
	var one int
	err := t.tx.tx.QueryRowContext(ctx, `SELECT 1 FROM hosts WHERE user_id = $1 AND bid = $2 AND id <> $3`,
		userID, bid, exceptID).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, t.d.errorf("check bid", err)
	}
	return true, nil
}

// SetL1 implements l1config.Tx. A concurrent clash the look-up of
// BIDTaken cannot see (PostgreSQL) fails the unique constraint.
func (t l1configTx) SetL1(ctx context.Context, id string, ch l1config.Change) (hosts.Host, error) {
	h, err := scanHost(t.tx.tx.QueryRowContext(ctx, `UPDATE hosts SET bid = $1, report_url = $2, secret_sealed = $3,
		webhook_format = $4 WHERE id = $5 RETURNING `+hostCols,
		ch.BID, ch.ReportURL, ch.SecretSealed, ch.WebhookFormat, id))
	if t.d.dialect.IsUniqueViolation(err) {
		return hosts.Host{}, hosts.ErrBIDTaken
	}
	if err != nil {
		return hosts.Host{}, t.d.errorf("update l1 config", err)
	}
	return h, nil
}

// Issue implements l1config.Tx.
func (t l1configTx) Issue(ctx context.Context, owner, id string, iss hosts.Issuance) (hosts.Host, hosts.Secrets, error) {
	return t.d.issue(ctx, t.tx.tx, owner, id, iss)
}

// QueueDelivery implements l1config.Tx.
func (t l1configTx) QueueDelivery(ctx context.Context, del deliveries.Delivery) error {
	return t.d.insertDelivery(ctx, t.tx.tx, del)
}
