package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"hostgate/internal/audit"
	"hostgate/internal/billing"
	"hostgate/internal/paging"
)

var _ billing.Store = (*DB)(nil)

// modeAndPrice reads the billing mode and the effective price of a rule
// code in one statement; a code without an effective rule has no price.
const modeAndPrice = `SELECT
	(SELECT value FROM settings WHERE key = 'billing_mode'),
	(SELECT units FROM pricing_rules
	  WHERE code = $1 AND valid_from <= $2 AND (valid_until IS NULL OR valid_until > $2)
	  ORDER BY valid_from DESC LIMIT 1)`

// ChargeCalls implements billing.Store. Each user's balance row is read
// under a row lock (the single writer on SQLite) in user order, so
// concurrent batches on several instances never deadlock; the charges are
// applied to it in order in memory, and the balance, written once, and
// the events go back in the same transaction. The balance's CHECK
// constraint still refuses anything below zero.
func (d *DB) ChargeCalls(ctx context.Context, cs []billing.Charge) ([]billing.ChargeResult, error) {
	out := make([]billing.ChargeResult, len(cs))
	if len(cs) == 0 {
		return out, nil
	}
	if len(cs) == 1 && d.dialect.WritingCTEs {
		r, err := d.chargeOne(ctx, cs[0])
		if err != nil {
			return nil, err
		}
		out[0] = r
		return out, nil
	}
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		prices := map[string]billing.Units{}
		at := cs[0].At
		for _, c := range cs {
			if c.At.After(at) {
				at = c.At
			}
		}
		for _, c := range cs {
			if _, ok := prices[c.RuleCode]; ok {
				continue
			}
			var mode sql.NullString
			var price sql.NullInt64
			if err := d.txRow(ctx, tx, modeAndPrice, c.RuleCode, d.timeArg(at)).Scan(&mode, &price); err != nil {
				return d.errorf("read price", err)
			}
			if mode.String == billing.ModeFree {
				return nil // nothing is charged while the mode is free
			}
			prices[c.RuleCode] = billing.Units(max(price.Int64, 0))
		}
		users := make([]string, 0, len(cs))
		for _, c := range cs {
			if prices[c.RuleCode] > 0 && !slices.Contains(users, c.UserID) {
				users = append(users, c.UserID)
			}
		}
		slices.Sort(users) // one lock order for every batch
		var events []billing.Event
		for _, u := range users {
			var units int64
			err := d.txRow(ctx, tx, d.lockBalance(), u).Scan(&units)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return d.errorf("read balance", err)
			}
			before := units
			for i, c := range cs {
				price := prices[c.RuleCode]
				if c.UserID != u || price == 0 {
					continue
				}
				if units < int64(price) {
					out[i].Err = billing.ErrInsufficient
					continue
				}
				units -= int64(price)
				out[i].Charged = billing.Charged{Charged: true, Units: price, BalanceAfter: billing.Units(units)}
				events = append(events, billing.Event{ID: c.EventID, UserID: u, Kind: billing.KindCharge, Units: -price,
					BalanceAfter: billing.Units(units), RuleCode: c.RuleCode, HostID: c.HostID, APIKeyID: c.APIKeyID, CreatedAt: c.At})
			}
			if units != before {
				if _, err := d.txExec(ctx, tx, setBalance, units, d.timeArg(at), u); err != nil {
					return d.errorf("debit balance", err)
				}
			}
		}
		return d.insertEvents(ctx, tx, events)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// chargeOneStatement is ChargeCalls for one charge as one statement: the
// mode and price are read, the balance taken only where it covers the
// price (the row lock of the UPDATE orders concurrent charges, each of
// which re-checks the condition after the one before commits), and the
// event written from the taken balance. It returns the mode, the price and
// the balance after the charge, NULL when nothing was taken.
const chargeOneStatement = `WITH p (mode, price) AS (` + modeAndPrice + `),
	taken AS (
		UPDATE billing_balances b SET units = b.units - p.price, updated_at = $2
		FROM p
		WHERE b.user_id = $3 AND p.mode IS DISTINCT FROM 'free' AND p.price > 0 AND b.units >= p.price
		RETURNING b.units
	),
	event AS (
		INSERT INTO billing_events (id, user_id, kind, units, balance_after, rule_code, host_id, api_key_id, reason, created_at)
		SELECT $4, $3, 'charge', -p.price, taken.units, $1, $5, $6, '', $2 FROM taken, p
	)
	SELECT p.mode, p.price, (SELECT units FROM taken) FROM p`

// chargeOne applies one charge with chargeOneStatement, with the outcomes
// of ChargeCalls: free mode or no price charges nothing; a balance below
// the price (or none) is ErrInsufficient.
func (d *DB) chargeOne(ctx context.Context, c billing.Charge) (billing.ChargeResult, error) {
	var mode sql.NullString
	var price, after sql.NullInt64
	err := d.write.QueryRowContext(ctx, chargeOneStatement, c.RuleCode, d.timeArg(c.At), c.UserID, c.EventID, c.HostID,
		c.APIKeyID).Scan(&mode, &price, &after)
	switch {
	case err != nil:
		return billing.ChargeResult{}, d.errorf("charge", err)
	case mode.String == billing.ModeFree || price.Int64 <= 0:
		return billing.ChargeResult{}, nil
	case !after.Valid:
		return billing.ChargeResult{Err: billing.ErrInsufficient}, nil
	}
	units := billing.Units(price.Int64)
	return billing.ChargeResult{Charged: billing.Charged{Charged: true, Units: units, BalanceAfter: billing.Units(after.Int64)}}, nil
}

// lockBalance reads a user's balance for update.
func (d *DB) lockBalance() string {
	if d.dialect.RowLocks {
		return selectBalanceForUpdate
	}
	return selectBalance
}

const (
	selectBalance          = `SELECT units FROM billing_balances WHERE user_id = $1`
	selectBalanceForUpdate = selectBalance + ` FOR UPDATE`
	setBalance             = `UPDATE billing_balances SET units = $1, updated_at = $2 WHERE user_id = $3`
)

// moveBalance adds delta (either sign) to the user's balance and returns
// the new balance; billing.ErrInsufficient when it would go below zero.
func (d *DB) moveBalance(ctx context.Context, tx *sql.Tx, userID string, delta billing.Units, now time.Time) (billing.Units, error) {
	var after int64
	var err error
	if delta >= 0 {
		err = tx.QueryRowContext(ctx, `INSERT INTO billing_balances (user_id, units, updated_at) VALUES ($1, $2, $3)
			ON CONFLICT (user_id) DO UPDATE SET units = billing_balances.units + excluded.units, updated_at = excluded.updated_at
			RETURNING units`, userID, int64(delta), d.timeArg(now)).Scan(&after)
	} else {
		err = d.txRow(ctx, tx, debitBalance, int64(delta), d.timeArg(now), userID).Scan(&after)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, billing.ErrInsufficient
		}
	}
	if err != nil {
		return 0, d.errorf("move balance", err)
	}
	return billing.Units(after), nil
}

// debitBalance takes a negative delta only where the balance covers it.
const debitBalance = `UPDATE billing_balances SET units = units + $1, updated_at = $2
	WHERE user_id = $3 AND units + $1 >= 0 RETURNING units`

const insertBillingEvent = `INSERT INTO billing_events
	(id, user_id, kind, units, balance_after, rule_code, host_id, api_key_id, reason, created_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`

// insertEvents writes events in as few statements as execBatch can.
func (d *DB) insertEvents(ctx context.Context, tx *sql.Tx, events []billing.Event) error {
	if len(events) == 1 {
		return d.insertEvent(ctx, tx, events[0])
	}
	rows := make([][]any, len(events))
	for i, e := range events {
		rows[i] = []any{e.ID, e.UserID, e.Kind, int64(e.Units), int64(e.BalanceAfter), e.RuleCode, e.HostID,
			e.APIKeyID, e.Reason, d.timeArg(e.CreatedAt)}
	}
	return d.execBatch(ctx, tx, "insert billing events", billingEventColumns, rows,
		`INSERT INTO billing_events (id, user_id, kind, units, balance_after, rule_code, host_id, api_key_id, reason, created_at)
		 SELECT id, user_id, kind, units, balance_after, rule_code, host_id, api_key_id, reason, created_at FROM v`)
}

var billingEventColumns = []column{
	{"id", "text"}, {"user_id", "text"}, {"kind", "text"}, {"units", "bigint"}, {"balance_after", "bigint"},
	{"rule_code", "text"}, {"host_id", "text"}, {"api_key_id", "text"}, {"reason", "text"}, {"created_at", "timestamptz"},
}

func (d *DB) insertEvent(ctx context.Context, tx *sql.Tx, e billing.Event) error {
	_, err := d.txExec(ctx, tx, insertBillingEvent,
		e.ID, e.UserID, e.Kind, int64(e.Units), int64(e.BalanceAfter), e.RuleCode, e.HostID, e.APIKeyID, e.Reason,
		d.timeArg(e.CreatedAt))
	if err != nil {
		return d.errorf("insert billing event", err)
	}
	return nil
}

// AdjustBalance implements billing.Store.
func (d *DB) AdjustBalance(ctx context.Context, a billing.Adjustment) (billing.Units, error) {
	var after billing.Units
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM users WHERE id = $1`, a.UserID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return billing.ErrUserNotFound
		}
		if err != nil {
			return d.errorf("find user", err)
		}
		if after, err = d.moveBalance(ctx, tx, a.UserID, a.Units, a.At); err != nil {
			return err
		}
		err = d.insertEvent(ctx, tx, billing.Event{
			ID: a.EventID, UserID: a.UserID, Kind: billing.KindAdjust, Units: a.Units, BalanceAfter: after,
			Reason: a.Reason, CreatedAt: a.At,
		})
		if err != nil {
			return err
		}
		return d.insertAudit(ctx, tx, withAuditDefaults(a.Audit, a.At))
	})
	return after, err
}

// Balance implements billing.Store.
func (d *DB) Balance(ctx context.Context, userID string) (billing.Units, error) {
	var u int64
	err := d.read.QueryRowContext(ctx, `SELECT units FROM billing_balances WHERE user_id = $1`, userID).Scan(&u)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, d.errorf("read balance", err)
	}
	return billing.Units(u), nil
}

const eventCols = "id, user_id, kind, units, balance_after, rule_code, host_id, api_key_id, reason, created_at"

func scanEvent(r rowScanner) (billing.Event, error) {
	var e billing.Event
	err := r.Scan(&e.ID, &e.UserID, &e.Kind, &e.Units, &e.BalanceAfter, &e.RuleCode, &e.HostID, &e.APIKeyID,
		&e.Reason, timeDest{&e.CreatedAt})
	return e, err
}

// ListBillingEvents implements billing.Store.
func (d *DB) ListBillingEvents(ctx context.Context, userID string, p paging.Page) ([]billing.Event, int, error) {
	var w where
	w.add(`user_id = $%d`, userID)
	return listPage(ctx, d, "billing events", eventCols, "billing_events", w, "created_at DESC, id DESC", p, scanEvent)
}

// SumBillingEvents implements billing.Store.
func (d *DB) SumBillingEvents(ctx context.Context, userID string) (billing.Units, error) {
	var sum int64
	err := d.read.QueryRowContext(ctx, `SELECT COALESCE(SUM(units), 0) FROM billing_events WHERE user_id = $1`, userID).Scan(&sum)
	if err != nil {
		return 0, d.errorf("sum billing events", err)
	}
	return billing.Units(sum), nil
}

const ruleCols = "id, code, units, description, valid_from, valid_until, created_at"

func scanRule(r rowScanner) (billing.Rule, error) {
	var x billing.Rule
	err := r.Scan(&x.ID, &x.Code, &x.Units, &x.Description, timeDest{&x.ValidFrom}, nullTimeDest{&x.ValidUntil},
		timeDest{&x.CreatedAt})
	return x, err
}

// ListRules implements billing.Store.
func (d *DB) ListRules(ctx context.Context, includeExpired bool, now time.Time) ([]billing.Rule, error) {
	var w where
	if !includeExpired {
		w.add(`(valid_until IS NULL OR valid_until > $%d)`, d.timeArg(now))
	}
	rows, err := d.read.QueryContext(ctx, `SELECT `+ruleCols+` FROM pricing_rules`+w.sql()+
		` ORDER BY code, valid_from DESC, id`, w.args...)
	if err != nil {
		return nil, d.errorf("list pricing rules", err)
	}
	rules, err := collect(rows, scanRule)
	if err != nil {
		return nil, d.errorf("list pricing rules", err)
	}
	return rules, nil
}

// BillingMode implements billing.Store.
func (d *DB) BillingMode(ctx context.Context) (string, error) {
	var m string
	err := d.read.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = 'billing_mode'`).Scan(&m)
	if err != nil {
		return "", d.errorf("read billing mode", err)
	}
	return m, nil
}

// SetBillingMode implements billing.Store: the mode, the record that it
// was chosen and its audit entry in one transaction.
func (d *DB) SetBillingMode(ctx context.Context, mode string, rec audit.Entry) error {
	return d.withTx(ctx, func(tx *sql.Tx) error {
		for _, kv := range [][2]string{{"billing_mode", mode}, {modeChosen, "admin"}} {
			_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ($1, $2)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value`, kv[0], kv[1])
			if err != nil {
				return d.errorf("set billing mode", err)
			}
		}
		return d.insertAudit(ctx, tx, withAuditDefaults(rec, time.Now()))
	})
}

// modeChosen is the settings key present once a billing mode was chosen,
// by an admin ("admin") or by the configuration of a new installation
// ("config"); the migrations' default mode is not a choice.
const modeChosen = "billing_mode_chosen"

// InitBillingMode implements billing.Store. The insert of the chosen
// mark is the decision: it happens at most once, and not once users exist.
func (d *DB) InitBillingMode(ctx context.Context, mode string, rec audit.Entry) (string, bool, error) {
	var set bool
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value)
			SELECT '`+modeChosen+`', 'config' WHERE NOT EXISTS (SELECT 1 FROM users)
			ON CONFLICT (key) DO NOTHING`)
		if err != nil {
			return d.errorf("init billing mode", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		set = true
		if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ('billing_mode', $1)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, mode); err != nil {
			return d.errorf("init billing mode", err)
		}
		return d.insertAudit(ctx, tx, withAuditDefaults(rec, time.Now()))
	})
	if err != nil {
		return "", false, err
	}
	current, err := d.BillingMode(ctx)
	return current, set, err
}

// CreateRule implements billing.Store.
func (d *DB) CreateRule(ctx context.Context, r billing.Rule, rec audit.Entry) error {
	return d.withTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO pricing_rules (`+ruleCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			r.ID, r.Code, int64(r.Units), r.Description, d.timeArg(r.ValidFrom), d.nullTimeArg(r.ValidUntil), d.timeArg(r.CreatedAt))
		if err != nil {
			return d.errorf("create pricing rule", err)
		}
		return d.insertAudit(ctx, tx, withAuditDefaults(rec, r.CreatedAt))
	})
}

// UpdateRule implements billing.Store.
func (d *DB) UpdateRule(ctx context.Context, id string, ch billing.RuleChange, rec audit.Entry) (billing.Rule, error) {
	var r billing.Rule
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		var err error
		r, err = scanRule(tx.QueryRowContext(ctx, `SELECT `+ruleCols+` FROM pricing_rules WHERE id = $1`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return billing.ErrRuleNotFound
		}
		if err != nil {
			return d.errorf("read pricing rule", err)
		}
		if ch.Units != nil {
			r.Units = *ch.Units
		}
		if ch.Description != nil {
			r.Description = *ch.Description
		}
		if ch.ValidUntil != nil {
			r.ValidUntil = ch.ValidUntil
			if ch.ValidUntil.IsZero() {
				r.ValidUntil = nil
			}
		}
		if r.ValidUntil != nil && !r.ValidUntil.After(r.ValidFrom) {
			return billing.ErrRuleWindow
		}
		_, err = tx.ExecContext(ctx, `UPDATE pricing_rules SET units = $1, description = $2, valid_until = $3 WHERE id = $4`,
			int64(r.Units), r.Description, d.nullTimeArg(r.ValidUntil), id)
		if err != nil {
			return d.errorf("update pricing rule", err)
		}
		return d.insertAudit(ctx, tx, withAuditDefaults(rec, ch.At))
	})
	return r, err
}

// Summary implements billing.Store, in one statement.
func (d *DB) Summary(ctx context.Context, since time.Time) (billing.Summary, error) {
	var x billing.Summary
	t := d.timeArg(since)
	err := d.read.QueryRowContext(ctx, `SELECT
		(SELECT COALESCE(SUM(amount_fen), 0) FROM recharges WHERE paid_at >= $1),
		(SELECT COALESCE(SUM(amount_fen), 0) FROM recharges WHERE refunded_at >= $1),
		(SELECT count(*) FROM billing_events WHERE kind = 'charge' AND created_at >= $1),
		(SELECT COALESCE(-SUM(units), 0) FROM billing_events WHERE kind = 'charge' AND created_at >= $1),
		(SELECT count(*) FROM recharges WHERE status = 'pending')`, t).
		Scan(&x.PaidFen, &x.RefundedFen, &x.Charges, &x.Charged, &x.Pending)
	if err != nil {
		return billing.Summary{}, d.errorf("billing summary", err)
	}
	return x, nil
}
