package sqldb

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"hostgate/internal/deliveries"
	"hostgate/internal/hosts"
	"hostgate/internal/paging"
)

// Deliveries is the webhook delivery queue's storage, on the shared core.
type Deliveries struct{ d *DB }

var _ deliveries.Store = Deliveries{}

// Deliveries returns the webhook delivery queue's storage.
func (d *DB) Deliveries() deliveries.Store { return Deliveries{d} }

const deliveryCols = `seq, id, host_id, user_id, event_type, format, status, attempts, target_url, http_status,
	last_error, payload, secrets_sealed, next_attempt_at, lease_owner, lease_until, created_at, delivered_at`

// unfinished is the SQL list of the states the worker still has to send.
const unfinished = "('pending', 'retrying')"

func scanDelivery(r rowScanner) (deliveries.Delivery, error) {
	var (
		d          deliveries.Delivery
		httpStatus sql.NullInt64
		payload    string
		hostID     sql.NullString
	)
	err := r.Scan(&d.Seq, &d.ID, &hostID, &d.UserID, &d.EventType, (*string)(&d.Format), (*string)(&d.Status),
		&d.Attempts, &d.TargetURL, &httpStatus, &d.LastError, &payload, &d.SealedSecrets,
		timeDest{&d.NextAttemptAt}, &d.LeaseOwner, nullTimeDest{&d.LeaseUntil}, timeDest{&d.CreatedAt},
		nullTimeDest{&d.DeliveredAt})
	if httpStatus.Valid {
		n := int(httpStatus.Int64)
		d.HTTPStatus = &n
	}
	d.Payload, d.HostID = []byte(payload), hostID.String
	return d, err
}

// CountUnfinishedDeliveries implements deliveries.Store: the queue depth.
func (s Deliveries) CountUnfinishedDeliveries(ctx context.Context) (int64, error) {
	d := s.d
	var n int64
	err := d.read.QueryRowContext(ctx, `SELECT count(*) FROM webhook_deliveries WHERE status IN `+unfinished).Scan(&n)
	return n, err
}

// CountQueue implements deliveries.Store: each count by its partial
// index (webhook_deliveries_unfinished, webhook_deliveries_dead).
func (s Deliveries) CountQueue(ctx context.Context) (deliveries.Queue, error) {
	d := s.d
	var q deliveries.Queue
	err := d.read.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM webhook_deliveries WHERE status IN `+unfinished+`),
		(SELECT count(*) FROM webhook_deliveries WHERE status = 'dead_letter')`).Scan(&q.Unfinished, &q.Dead)
	if err != nil {
		return deliveries.Queue{}, d.errorf("count webhook queue", err)
	}
	return q, nil
}

// EnqueueDelivery implements deliveries.Store: insertDelivery in a
// transaction of its own.
func (s Deliveries) EnqueueDelivery(ctx context.Context, del deliveries.Delivery) error {
	d := s.d
	return d.withTx(ctx, func(tx *sql.Tx) error { return d.insertDelivery(ctx, tx, del) })
}

// insertDelivery queues del inside tx, the transaction that wrote the L1
// change it reports; the store assigns seq. It stays on the core: L1Config's
// unit of work queues through it too. A delivery without a target is
// stored as skipped_no_url. The host must exist: hosts.ErrNotFound.
//
// It locks the host's row first (PostgreSQL; SQLite's single writer needs
// no lock), so that the deliveries of one host are inserted one
// transaction at a time and seq order is their commit order. A caller that
// has already updated the host row in tx holds that lock already.
//
// A user-level delivery (no host) locks nothing: it has no order to keep.
func (d *DB) insertDelivery(ctx context.Context, tx *sql.Tx, del deliveries.Delivery) error {
	lock := ""
	if d.dialect.RowLocks {
		lock = " FOR UPDATE"
	}
	var hostID any
	if del.HostID != "" {
		var id string
		err := tx.QueryRowContext(ctx, `SELECT id FROM hosts WHERE id = $1`+lock, del.HostID).Scan(&id)
		if err := d.hostResult("lock host for delivery", err, hosts.ErrNotFound); err != nil {
			return err
		}
		hostID = del.HostID
	}
	status := cmp.Or(del.Status, deliveries.StatusPending)
	if del.TargetURL == "" {
		status = deliveries.StatusSkippedNoURL
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (id, host_id, user_id, event_type, format, status,
		attempts, target_url, payload, secrets_sealed, next_attempt_at, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		del.ID, hostID, del.UserID, del.EventType, string(del.Format), string(status), del.Attempts,
		del.TargetURL, string(del.Payload), del.SealedSecrets, d.timeArg(del.NextAttemptAt), d.timeArg(del.CreatedAt))
	if err != nil {
		return d.errorf("insert delivery", err)
	}
	return nil
}

// ClaimDue implements deliveries.Store. A row is claimable when no other
// unfinished row of its host is older or leased: the second half keeps a
// host's sends apart even when a manual retry revives an older row while a
// later one is in flight. One statement picks and leases the
// rows. On PostgreSQL the pick locks them FOR UPDATE SKIP LOCKED, so a
// concurrent claimer skips them rather than waiting, and the lease
// condition is checked again on the locked row: a row another instance has
// just leased is left alone. On SQLite the single writer runs the
// statement alone.
func (s Deliveries) ClaimDue(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]deliveries.Delivery, error) {
	d := s.d
	lock := ""
	if d.dialect.RowLocks {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	const claimable = `status IN ` + unfinished + ` AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until <= $3)`
	rows, err := d.write.QueryContext(ctx, `UPDATE webhook_deliveries SET lease_owner = $1, lease_until = $2
		WHERE `+claimable+` AND id IN (
			SELECT w.id FROM webhook_deliveries w
			WHERE w.`+claimable+`
			  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
			                  WHERE e.host_id = w.host_id AND e.status IN `+unfinished+` AND e.id <> w.id
			                    AND (e.seq < w.seq OR e.lease_until > $3))
			ORDER BY w.seq LIMIT $4`+lock+`)
		RETURNING `+deliveryCols,
		owner, d.timeArg(now.Add(lease)), d.timeArg(now), int64(max(limit, 1)))
	if err != nil {
		return nil, d.errorf("claim deliveries", err)
	}
	out, err := collect(rows, scanDelivery)
	if err != nil {
		return nil, d.errorf("claim deliveries", err)
	}
	slices.SortFunc(out, func(a, b deliveries.Delivery) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, nil
}

// FinishDelivery implements deliveries.Store. The lease must still be the
// owner's and live at r.At: a lease that expired may already have been
// taken over, and the new owner's attempt is the one that counts.
func (s Deliveries) FinishDelivery(ctx context.Context, id, owner string, r deliveries.Result) error {
	d := s.d
	var httpStatus any
	if r.HTTPStatus != 0 {
		httpStatus = int64(r.HTTPStatus)
	}
	var delivered, next any
	switch r.Status {
	case deliveries.StatusSuccess:
		delivered = d.timeArg(r.At)
	case deliveries.StatusRetrying:
		next = d.timeArg(r.NextAttemptAt)
	case deliveries.StatusDeadLetter:
	default:
		return errors.New("sqldb: finish delivery: result status must be success, retrying or dead_letter")
	}
	res, err := d.write.ExecContext(ctx, `UPDATE webhook_deliveries SET status = $1, attempts = attempts + 1,
		http_status = $2, last_error = $3, delivered_at = $4,
		next_attempt_at = COALESCE($5, next_attempt_at), lease_owner = '', lease_until = NULL
		WHERE id = $6 AND lease_owner = $7 AND lease_until > $8 AND status IN `+unfinished,
		string(r.Status), httpStatus, r.Error, delivered, next, id, owner, d.timeArg(r.At))
	if err != nil {
		return d.errorf("finish delivery", err)
	}
	return affected(res, deliveries.ErrLeaseLost)
}

// ListDeliveries implements deliveries.Store.
func (s Deliveries) ListDeliveries(ctx context.Context, hostID string, limit int) ([]deliveries.Delivery, error) {
	d := s.d
	if limit <= 0 {
		limit = deliveries.DefaultLimit
	}
	rows, err := d.read.QueryContext(ctx, `SELECT `+deliveryCols+` FROM webhook_deliveries
		WHERE host_id = $1 ORDER BY seq DESC LIMIT $2`, hostID, int64(min(limit, deliveries.MaxLimit)))
	if err != nil {
		return nil, d.errorf("list deliveries", err)
	}
	out, err := collect(rows, scanDelivery)
	if err != nil {
		return nil, d.errorf("list deliveries", err)
	}
	return out, nil
}

// RetryDelivery implements deliveries.Store.
func (s Deliveries) RetryDelivery(ctx context.Context, hostID, id string, now time.Time) (deliveries.Delivery, error) {
	d := s.d
	var del deliveries.Delivery
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		del, err = scanDelivery(tx.QueryRowContext(ctx, `UPDATE webhook_deliveries
			SET status = 'retrying', next_attempt_at = $1, lease_owner = '', lease_until = NULL
			WHERE id = $2 AND host_id = $3 AND status = 'dead_letter' RETURNING `+deliveryCols,
			d.timeArg(now), id, hostID))
		if !errors.Is(err, sql.ErrNoRows) {
			return d.hostResult("retry delivery", err, deliveries.ErrNotFound)
		}
		var one int
		err = tx.QueryRowContext(ctx, `SELECT 1 FROM webhook_deliveries WHERE id = $1 AND host_id = $2`, id, hostID).Scan(&one)
		if err := d.hostResult("read delivery", err, deliveries.ErrNotFound); err != nil {
			return err
		}
		return deliveries.ErrNotDead
	})
	return del, err
}

// ListUserDeliveries implements deliveries.Store, by
// webhook_deliveries_user_newest.
func (s Deliveries) ListUserDeliveries(ctx context.Context, userID string, p paging.Page) ([]deliveries.Delivery, int, error) {
	var w where
	w.add("user_id = $%d", userID)
	w.addSQL("host_id IS NULL")
	return listPage(ctx, s.d, "user deliveries", deliveryCols, "webhook_deliveries", w, keyOrder{Tie: "seq", TieKind: kindInt, Desc: true}, p, scanDelivery)
}

// RetryUserDelivery implements deliveries.Store.
func (s Deliveries) RetryUserDelivery(ctx context.Context, userID, id string, now time.Time) (deliveries.Delivery, error) {
	d := s.d
	var del deliveries.Delivery
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		del, err = scanDelivery(tx.QueryRowContext(ctx, `UPDATE webhook_deliveries
			SET status = 'retrying', next_attempt_at = $1, lease_owner = '', lease_until = NULL
			WHERE id = $2 AND user_id = $3 AND host_id IS NULL AND status = 'dead_letter' RETURNING `+deliveryCols,
			d.timeArg(now), id, userID))
		if !errors.Is(err, sql.ErrNoRows) {
			return d.hostResult("retry user delivery", err, deliveries.ErrNotFound)
		}
		var one int
		err = tx.QueryRowContext(ctx, `SELECT 1 FROM webhook_deliveries WHERE id = $1 AND user_id = $2 AND host_id IS NULL`,
			id, userID).Scan(&one)
		if err := d.hostResult("read user delivery", err, deliveries.ErrNotFound); err != nil {
			return err
		}
		return deliveries.ErrNotDead
	})
	return del, err
}

// PutUserSecret implements deliveries.Store.
func (s Deliveries) PutUserSecret(ctx context.Context, userID string, sealed []byte, createdAt time.Time) error {
	_, err := s.d.write.ExecContext(ctx, `INSERT INTO user_webhook_secrets (user_id, secret_sealed, created_at)
		VALUES ($1, $2, $3) ON CONFLICT (user_id) DO UPDATE SET secret_sealed = $2, created_at = $3`,
		userID, sealed, s.d.timeArg(createdAt))
	if err != nil {
		return s.d.errorf("put user webhook secret", err)
	}
	return nil
}

// UserSecret implements deliveries.Store.
func (s Deliveries) UserSecret(ctx context.Context, userID string) ([]byte, time.Time, error) {
	var (
		sealed []byte
		at     time.Time
	)
	err := s.d.read.QueryRowContext(ctx, `SELECT secret_sealed, created_at FROM user_webhook_secrets WHERE user_id = $1`,
		userID).Scan(&sealed, timeDest{&at})
	return sealed, at, s.d.hostResult("read user webhook secret", err, deliveries.ErrNoSecret)
}
