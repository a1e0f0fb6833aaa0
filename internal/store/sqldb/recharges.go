package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"hostgate/internal/billing"
	"hostgate/internal/paging"
)

const rechargeCols = "id, order_no, user_id, amount_fen, units, status, provider, created_at, expires_at, paid_at, refunded_at"

func scanRecharge(r rowScanner) (billing.Recharge, error) {
	var x billing.Recharge
	err := r.Scan(&x.ID, &x.OrderNo, &x.UserID, &x.AmountFen, &x.Units, &x.Status, &x.Provider,
		timeDest{&x.CreatedAt}, timeDest{&x.ExpiresAt}, nullTimeDest{&x.PaidAt}, nullTimeDest{&x.RefundedAt})
	return x, err
}

// CreateRecharge implements billing.RechargeStore.
func (b Billing) CreateRecharge(ctx context.Context, r billing.Recharge) error {
	d := b.d
	_, err := d.write.ExecContext(ctx, `INSERT INTO recharges (`+rechargeCols+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		r.ID, r.OrderNo, r.UserID, r.AmountFen, int64(r.Units), r.Status, r.Provider,
		d.timeArg(r.CreatedAt), d.timeArg(r.ExpiresAt), d.nullTimeArg(r.PaidAt), d.nullTimeArg(r.RefundedAt))
	if err != nil {
		return d.errorf("create recharge", err)
	}
	return nil
}

// ListRecharges implements billing.RechargeStore.
func (b Billing) ListRecharges(ctx context.Context, userID, status string, p paging.Page) ([]billing.Recharge, int, error) {
	d := b.d
	var w where
	if userID != "" {
		w.add(`user_id = $%d`, userID)
	}
	if status != "" {
		w.add(`status = $%d`, status)
	}
	return listPage(ctx, d, "recharges", rechargeCols, "recharges", w, "created_at DESC, id DESC", p, scanRecharge)
}

// RechargeByOrderNo implements billing.RechargeStore.
func (b Billing) RechargeByOrderNo(ctx context.Context, orderNo string) (billing.Recharge, error) {
	d := b.d
	r, err := scanRecharge(d.read.QueryRowContext(ctx, `SELECT `+rechargeCols+` FROM recharges WHERE order_no = $1`, orderNo))
	if errors.Is(err, sql.ErrNoRows) {
		return billing.Recharge{}, billing.ErrOrderNotFound
	}
	if err != nil {
		return billing.Recharge{}, d.errorf("read recharge", err)
	}
	return r, nil
}

// PayRecharge implements billing.RechargeStore. The conditional UPDATE is
// the once-only gate: of concurrent notifications one moves the order out
// of pending (or expired) and credits; the others find it paid.
func (b Billing) PayRecharge(ctx context.Context, p billing.Payment) (billing.Recharge, bool, error) {
	d := b.d
	var r billing.Recharge
	credited := false
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		r, err = scanRecharge(tx.QueryRowContext(ctx, `UPDATE recharges SET status = 'paid', paid_at = $1, provider = $2
			WHERE order_no = $3 AND amount_fen = $4 AND status IN ('pending', 'expired')
			RETURNING `+rechargeCols, d.timeArg(p.At), p.Provider, p.OrderNo, p.AmountFen))
		if errors.Is(err, sql.ErrNoRows) {
			return d.explainUnpaid(ctx, tx, p, &r)
		}
		if err != nil {
			return d.errorf("pay recharge", err)
		}
		after, err := d.credit(ctx, tx, r.UserID, r.Units, p.At)
		if err != nil {
			return err
		}
		credited = true
		return d.insertEvent(ctx, tx, billing.Event{ID: p.EventID, UserID: r.UserID, Kind: billing.KindRecharge,
			Units: r.Units, BalanceAfter: after, Reason: "order " + r.OrderNo, CreatedAt: p.At})
	})
	return r, credited, err
}

// explainUnpaid tells why an order was not moved to paid: already paid
// (nil: a repeat), or one of billing's errors.
func (d *DB) explainUnpaid(ctx context.Context, tx *sql.Tx, p billing.Payment, r *billing.Recharge) error {
	var err error
	*r, err = scanRecharge(tx.QueryRowContext(ctx, `SELECT `+rechargeCols+` FROM recharges WHERE order_no = $1`, p.OrderNo))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return billing.ErrOrderNotFound
	case err != nil:
		return d.errorf("read recharge", err)
	case r.AmountFen != p.AmountFen:
		return fmt.Errorf("%w: paid %d fen, order %d", billing.ErrAmountMismatch, p.AmountFen, r.AmountFen)
	case r.Status == billing.RechargePaid:
		return nil
	}
	return billing.ErrNotPayable
}

// ExpireRecharges implements billing.RechargeStore.
func (b Billing) ExpireRecharges(ctx context.Context, now time.Time) (int64, error) {
	d := b.d
	res, err := d.write.ExecContext(ctx, `UPDATE recharges SET status = 'expired'
		WHERE status = 'pending' AND expires_at <= $1`, d.timeArg(now))
	if err != nil {
		return 0, d.errorf("expire recharges", err)
	}
	return res.RowsAffected()
}
