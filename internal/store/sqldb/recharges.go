package sqldb

import (
	"context"
	"database/sql"
	"errors"
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
	return listPage(ctx, d, "recharges", rechargeCols, "recharges", w, newestFirst, p, scanRecharge)
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

const (
	selectRecharge          = `SELECT ` + rechargeCols + ` FROM recharges WHERE order_no = $1`
	selectRechargeForUpdate = selectRecharge + ` FOR UPDATE`
)

// LockRecharge implements billing.Tx.
func (t billingTx) LockRecharge(ctx context.Context, orderNo string) (billing.Recharge, error) {
	r, err := scanRecharge(t.tx.tx.QueryRowContext(ctx, t.lock(selectRecharge, selectRechargeForUpdate), orderNo))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return billing.Recharge{}, billing.ErrOrderNotFound
	case err != nil:
		return billing.Recharge{}, t.d.errorf("read recharge", err)
	}
	return r, nil
}

// MarkPaid implements billing.Tx.
func (t billingTx) MarkPaid(ctx context.Context, id, provider string, at time.Time) (billing.Recharge, error) {
	r, err := scanRecharge(t.tx.tx.QueryRowContext(ctx, `UPDATE recharges SET status = 'paid', paid_at = $1, provider = $2
		WHERE id = $3 RETURNING `+rechargeCols, t.d.timeArg(at), provider, id))
	if err != nil {
		return billing.Recharge{}, t.d.errorf("pay recharge", err)
	}
	return r, nil
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
