package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"hostgate/internal/billing"
	"hostgate/internal/paging"
)

// Billing is the billing storage, on the shared core: plain reads, and
// the plain operations of billing's unit of work (billingTx), in which
// billing.Ledger decides.
type Billing struct{ d *DB }

// loneBilling is Billing that charges a lone call in the fewest
// statements its engine allows (billing.LoneCharger): one on an engine
// that runs data-modifying statements inside WITH (PostgreSQL), two in
// one transaction on the others (SQLite).
type loneBilling struct{ Billing }

var (
	_ billing.Storage     = Billing{}
	_ billing.LoneCharger = loneBilling{}
	_ billing.Tx          = billingTx{}
)

// Billing returns the billing storage.
func (d *DB) Billing() billing.Storage {
	return loneBilling{Billing{d}}
}

// Tx implements billing.Store.
func (b Billing) Tx(ctx context.Context, fn func(billing.Tx) error) error {
	return b.d.unit(ctx, func(t *tx) error { return fn(billingTx{t}) })
}

// billingTx is billing's unit of work.
type billingTx struct{ *tx }

// priceRules reads the billing mode and the rules of a code effective at
// a moment: one row, its rule columns NULL, when none is.
const priceRules = `SELECT (SELECT value FROM settings WHERE key = 'billing_mode'), r.units, r.valid_from, r.valid_until
	FROM (SELECT 1) AS one LEFT JOIN pricing_rules r
	  ON r.code = $1 AND r.valid_from <= $2 AND (r.valid_until IS NULL OR r.valid_until > $2)`

// PriceRules implements billing.Tx.
func (t billingTx) PriceRules(ctx context.Context, code string, at time.Time) (string, []billing.Rule, error) {
	rows, err := t.query(ctx, priceRules, code, t.d.timeArg(at))
	if err != nil {
		return "", nil, t.d.errorf("read prices", err)
	}
	defer rows.Close()
	var mode sql.NullString
	var rules []billing.Rule
	for rows.Next() {
		var units sql.NullInt64
		var from, until *time.Time
		if err := rows.Scan(&mode, &units, nullTimeDest{&from}, nullTimeDest{&until}); err != nil {
			return "", nil, t.d.errorf("read prices", err)
		}
		if units.Valid && from != nil {
			rules = append(rules, billing.Rule{Code: code, Units: billing.Units(units.Int64), ValidFrom: *from, ValidUntil: until})
		}
	}
	if err := rows.Err(); err != nil {
		return "", nil, t.d.errorf("read prices", err)
	}
	return mode.String, rules, nil
}

const (
	selectBalance          = `SELECT units FROM billing_balances WHERE user_id = $1`
	selectBalanceForUpdate = selectBalance + ` FOR UPDATE`
	setBalance             = `UPDATE billing_balances SET units = $1, updated_at = $2 WHERE user_id = $3`
	// creditBalance adds to a balance, creating it.
	creditBalance = `INSERT INTO billing_balances (user_id, units, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET units = billing_balances.units + excluded.units, updated_at = excluded.updated_at
		RETURNING units`
	// debitBalance takes from a balance only where the balance covers it.
	debitBalance = `UPDATE billing_balances SET units = units - $1, updated_at = $2
		WHERE user_id = $3 AND units >= $1 RETURNING units`
)

// LockBalance implements billing.Tx.
func (t billingTx) LockBalance(ctx context.Context, userID string) (billing.Units, error) {
	var units int64
	err := t.row(ctx, t.lock(selectBalance, selectBalanceForUpdate), userID).Scan(&units)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, t.d.errorf("read balance", err)
	}
	return billing.Units(units), nil
}

// SetBalance implements billing.Tx.
func (t billingTx) SetBalance(ctx context.Context, userID string, units billing.Units, at time.Time) error {
	if _, err := t.exec(ctx, setBalance, int64(units), t.d.timeArg(at), userID); err != nil {
		return t.d.errorf("write balance", err)
	}
	return nil
}

// Credit implements billing.Tx.
func (t billingTx) Credit(ctx context.Context, userID string, units billing.Units, at time.Time) (billing.Units, error) {
	return t.d.credit(ctx, t.tx.tx, userID, units, at)
}

// credit adds units to a balance, creating it, and returns the balance after.
func (d *DB) credit(ctx context.Context, q queryer, userID string, units billing.Units, at time.Time) (billing.Units, error) {
	var after int64
	if err := q.QueryRowContext(ctx, creditBalance, userID, int64(units), d.timeArg(at)).Scan(&after); err != nil {
		return 0, d.errorf("credit balance", err)
	}
	return billing.Units(after), nil
}

// Debit implements billing.Tx.
func (t billingTx) Debit(ctx context.Context, userID string, units billing.Units, at time.Time) (billing.Units, error) {
	var after int64
	err := t.row(ctx, debitBalance, int64(units), t.d.timeArg(at), userID).Scan(&after)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, billing.ErrInsufficient
	case err != nil:
		return 0, t.d.errorf("debit balance", err)
	}
	return billing.Units(after), nil
}

// InsertEvents implements billing.Tx.
func (t billingTx) InsertEvents(ctx context.Context, events []billing.Event) error {
	return t.d.insertEvents(ctx, t.tx.tx, events)
}

// EventByID implements billing.Tx.
func (t billingTx) EventByID(ctx context.Context, id string) (billing.Event, bool, error) {
	e, err := scanEvent(t.tx.tx.QueryRowContext(ctx, `SELECT `+eventCols+` FROM billing_events WHERE id = $1`, id))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return billing.Event{}, false, nil
	case err != nil:
		return billing.Event{}, false, t.d.errorf("read billing event", err)
	}
	return e, true, nil
}

// UserExists implements billing.Tx.
func (t billingTx) UserExists(ctx context.Context, userID string) (bool, error) {
	return t.exists(ctx, "find user", `SELECT 1 FROM users WHERE id = $1`, userID)
}

// UsersExist implements billing.Tx.
func (t billingTx) UsersExist(ctx context.Context) (bool, error) {
	return t.exists(ctx, "find users", `SELECT 1 FROM users LIMIT 1`)
}

// exists reports whether query, which selects 1, finds a row.
func (t *tx) exists(ctx context.Context, what, query string, args ...any) (bool, error) {
	var one int
	err := t.tx.QueryRowContext(ctx, query, args...).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, t.d.errorf(what, err)
	}
	return true, nil
}

// InsertRule implements billing.Tx.
func (t billingTx) InsertRule(ctx context.Context, r billing.Rule) error {
	_, err := t.tx.tx.ExecContext(ctx, `INSERT INTO pricing_rules (`+ruleCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		r.ID, r.Code, int64(r.Units), r.Description, t.d.timeArg(r.ValidFrom), t.d.nullTimeArg(r.ValidUntil), t.d.timeArg(r.CreatedAt))
	if err != nil {
		return t.d.errorf("create pricing rule", err)
	}
	return nil
}

const (
	selectRule          = `SELECT ` + ruleCols + ` FROM pricing_rules WHERE id = $1`
	selectRuleForUpdate = selectRule + ` FOR UPDATE`
)

// LockRule implements billing.Tx.
func (t billingTx) LockRule(ctx context.Context, id string) (billing.Rule, error) {
	r, err := scanRule(t.tx.tx.QueryRowContext(ctx, t.lock(selectRule, selectRuleForUpdate), id))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return billing.Rule{}, billing.ErrRuleNotFound
	case err != nil:
		return billing.Rule{}, t.d.errorf("read pricing rule", err)
	}
	return r, nil
}

// SaveRule implements billing.Tx.
func (t billingTx) SaveRule(ctx context.Context, r billing.Rule) error {
	_, err := t.tx.tx.ExecContext(ctx, `UPDATE pricing_rules SET units = $1, description = $2, valid_until = $3 WHERE id = $4`,
		int64(r.Units), r.Description, t.d.nullTimeArg(r.ValidUntil), r.ID)
	if err != nil {
		return t.d.errorf("update pricing rule", err)
	}
	return nil
}

// modeChosen is the settings key present once a billing mode was chosen,
// its value who chose it (billing.ChosenByAdmin, billing.ChosenByConfig).
const modeChosen = "billing_mode_chosen"

// ModeChosen implements billing.Tx.
func (t billingTx) ModeChosen(ctx context.Context) (bool, error) {
	return t.exists(ctx, "read billing mode", `SELECT 1 FROM settings WHERE key = $1`, modeChosen)
}

// ClaimModeChoice implements billing.Tx: the insert that finds the key
// taken does nothing.
func (t billingTx) ClaimModeChoice(ctx context.Context, by string) (bool, error) {
	res, err := t.tx.tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`,
		modeChosen, by)
	if err != nil {
		return false, t.d.errorf("choose billing mode", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, t.d.errorf("choose billing mode", err)
	}
	return n > 0, nil
}

// SetMode implements billing.Tx.
func (t billingTx) SetMode(ctx context.Context, mode, by string) error {
	for _, kv := range [][2]string{{"billing_mode", mode}, {modeChosen, by}} {
		_, err := t.tx.tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES ($1, $2)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, kv[0], kv[1])
		if err != nil {
			return t.d.errorf("set billing mode", err)
		}
	}
	return nil
}

// MarkRefunded implements billing.Tx.
func (t billingTx) MarkRefunded(ctx context.Context, id string, at time.Time) (billing.Recharge, error) {
	r, err := scanRecharge(t.tx.tx.QueryRowContext(ctx, `UPDATE recharges SET status = 'refunded', refunded_at = $1
		WHERE id = $2 AND status = 'paid' RETURNING `+rechargeCols, t.d.timeArg(at), id))
	if errors.Is(err, sql.ErrNoRows) {
		found, err := t.exists(ctx, "read recharge", `SELECT 1 FROM recharges WHERE id = $1`, id)
		switch {
		case err != nil:
			return billing.Recharge{}, err
		case !found:
			return billing.Recharge{}, billing.ErrOrderNotFound
		}
		return billing.Recharge{}, billing.ErrNotRefundable
	}
	if err != nil {
		return billing.Recharge{}, t.d.errorf("refund recharge", err)
	}
	return r, nil
}

// modeAndPrice reads the billing mode and the price of the rule of a code
// in force at a moment (billing.PriceAt) in one statement; a code without
// an effective rule has no price.
const modeAndPrice = `SELECT (` + billingMode + `), (` + priceAt + `)`

// chargeOneStatement is billing.Ledger.ChargeCalls for one charge as one
// statement, billing.PlanBatch's rule in SQL (storetest's
// LoneChargeAgreesWithPlan checks they agree): the mode and the price are
// read, the balance taken only where it covers the price (the row lock of
// the UPDATE orders concurrent charges, each of which re-checks the
// condition after the one before commits), and the event written from
// the taken balance. It returns the mode, the price and the balance after
// the charge, NULL when nothing was taken.
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

// takeForCharge is chargeOneStatement's taking of the balance for an
// engine without data-modifying WITH (SQLite): the balance taken where
// the mode charges, the code has a price above zero and the balance
// covers it, returning the balance after and the price. Its subqueries
// do not depend on the row, so each is read once.
const takeForCharge = `UPDATE billing_balances SET units = units - (` + priceAt + `), updated_at = $2
	WHERE user_id = $3 AND (` + billingMode + `) IS DISTINCT FROM 'free' AND (` + priceAt + `) > 0 AND units >= (` + priceAt + `)
	RETURNING units, (` + priceAt + `)`

// billingMode and priceAt are modeAndPrice's two halves.
const (
	billingMode = `SELECT value FROM settings WHERE key = 'billing_mode'`
	priceAt     = `SELECT units FROM pricing_rules
	  WHERE code = $1 AND valid_from <= $2 AND (valid_until IS NULL OR valid_until > $2)
	  ORDER BY valid_from DESC LIMIT 1`
)

// ChargeOne implements billing.LoneCharger. On PostgreSQL it is
// chargeOneStatement; elsewhere one transaction of takeForCharge and the
// event's insert, the mode and price read again only when nothing was
// taken.
func (b loneBilling) ChargeOne(ctx context.Context, c billing.Charge) (billing.LoneTake, error) {
	if !b.d.dialect.WritingCTEs {
		return b.chargeInTx(ctx, c)
	}
	d := b.d
	var mode sql.NullString
	var price, after sql.NullInt64
	err := d.write.QueryRowContext(ctx, chargeOneStatement, c.RuleCode, d.timeArg(c.At), c.UserID, c.EventID, c.HostID,
		c.APIKeyID).Scan(&mode, &price, &after)
	if err != nil {
		return billing.LoneTake{}, d.errorf("charge", err)
	}
	return billing.LoneTake{Taken: after.Valid, Mode: mode.String, Price: billing.Units(price.Int64),
		BalanceAfter: billing.Units(after.Int64)}, nil
}

// chargeInTx is ChargeOne without data-modifying WITH.
func (b loneBilling) chargeInTx(ctx context.Context, c billing.Charge) (billing.LoneTake, error) {
	d := b.d
	var out billing.LoneTake
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		var after, price int64
		err := d.txRow(ctx, tx, takeForCharge, c.RuleCode, d.timeArg(c.At), c.UserID).Scan(&after, &price)
		if errors.Is(err, sql.ErrNoRows) {
			var mode sql.NullString
			var found sql.NullInt64
			if err := d.txRow(ctx, tx, modeAndPrice, c.RuleCode, d.timeArg(c.At)).Scan(&mode, &found); err != nil {
				return d.errorf("read prices", err)
			}
			out = billing.LoneTake{Mode: mode.String, Price: billing.Units(found.Int64)}
			return nil
		}
		if err != nil {
			return d.errorf("charge", err)
		}
		out = billing.LoneTake{Taken: true, Price: billing.Units(price), BalanceAfter: billing.Units(after)}
		return d.insertEvent(ctx, tx, billing.Event{ID: c.EventID, UserID: c.UserID, Kind: billing.KindCharge,
			Units: -out.Price, BalanceAfter: out.BalanceAfter, RuleCode: c.RuleCode, HostID: c.HostID, APIKeyID: c.APIKeyID,
			CreatedAt: c.At})
	})
	if err != nil {
		return billing.LoneTake{}, err
	}
	return out, nil
}

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
	if d.dialect.IsUniqueViolation(err) {
		return billing.ErrDuplicateEvent
	}
	if err != nil {
		return d.errorf("insert billing event", err)
	}
	return nil
}

// Balance implements billing.Store.
func (b Billing) Balance(ctx context.Context, userID string) (billing.Units, error) {
	d := b.d
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
func (b Billing) ListBillingEvents(ctx context.Context, userID string, p paging.Page) ([]billing.Event, int, error) {
	d := b.d
	var w where
	w.add(`user_id = $%d`, userID)
	return listPage(ctx, d, "billing events", eventCols, "billing_events", w, newestFirst, p, scanEvent)
}

// SumBillingEvents implements billing.Store.
func (b Billing) SumBillingEvents(ctx context.Context, userID string) (billing.Units, error) {
	d := b.d
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
func (b Billing) ListRules(ctx context.Context, includeExpired bool, now time.Time) ([]billing.Rule, error) {
	d := b.d
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
func (b Billing) BillingMode(ctx context.Context) (string, error) {
	d := b.d
	var m string
	err := d.read.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = 'billing_mode'`).Scan(&m)
	if err != nil {
		return "", d.errorf("read billing mode", err)
	}
	return m, nil
}

// Summary implements billing.Store, in one statement.
func (b Billing) Summary(ctx context.Context, since time.Time) (billing.Summary, error) {
	d := b.d
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
