package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"hostgate/internal/audit"
)

// Ledger changes balances, rules and the mode, each change a unit of work
// of its Store in which billing's rules decide and the store only
// stores. Audit entries are built by the caller and written in the same
// unit of work as the change they record.
type Ledger struct {
	store Store
	// one charges a lone call in one statement, when the store can.
	one LoneCharger
}

// NewLedger returns the ledger over st.
func NewLedger(st Store) Ledger {
	one, _ := st.(LoneCharger)
	return Ledger{store: st, one: one}
}

// ChargeCalls charges a batch of calls in one unit of work that also
// reads the mode and the prices in force at the batch's time, as
// PlanBatch decides: each charge, in order, takes the price of its
// RuleCode from its user's balance and records its event, or, where the
// balance no longer covers the price, gets ErrInsufficient and changes
// nothing. In free mode, or at price zero, nothing is written for it. An
// error fails the whole batch and commits nothing.
func (l Ledger) ChargeCalls(ctx context.Context, cs []Charge) ([]ChargeResult, error) {
	if len(cs) == 0 {
		return []ChargeResult{}, nil
	}
	if len(cs) == 1 && l.one != nil {
		t, err := l.one.ChargeOne(ctx, cs[0])
		if err != nil {
			return nil, err
		}
		return []ChargeResult{loneResult(t)}, nil
	}
	var out []ChargeResult
	err := l.store.Tx(ctx, func(tx Tx) error {
		var err error
		out, err = ChargeIn(ctx, tx, cs)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ChargeIn charges cs inside tx, a unit of work the caller owns, as
// ChargeCalls does in its own: a caller that must record the charges with
// other changes (a job's runs) commits them together. The caller's unit
// of work must not have locked balance rows in another order.
func ChargeIn(ctx context.Context, tx Tx, cs []Charge) ([]ChargeResult, error) {
	if len(cs) == 0 {
		return []ChargeResult{}, nil
	}
	at := BatchTime(cs)
	mode, prices, err := readPrices(ctx, tx, cs, at)
	if err != nil {
		return nil, err
	}
	if mode == ModeFree {
		return make([]ChargeResult, len(cs)), nil
	}
	users := LockOrder(prices, cs)
	balances := make(map[string]Units, len(users))
	for _, u := range users {
		if balances[u], err = tx.LockBalance(ctx, u); err != nil {
			return nil, err
		}
	}
	p := PlanBatch(mode, prices, balances, cs)
	for _, u := range users {
		if b, ok := p.Balances[u]; ok {
			if err := tx.SetBalance(ctx, u, b, at); err != nil {
				return nil, err
			}
		}
	}
	if len(p.Events) > 0 {
		if err := tx.InsertEvents(ctx, p.Events); err != nil {
			return nil, err
		}
	}
	return p.Results, nil
}

// readPrices reads the mode and the price at at of each rule code of cs,
// stopping at a free mode (nothing is charged then).
func readPrices(ctx context.Context, tx Tx, cs []Charge, at time.Time) (string, map[string]Units, error) {
	prices := map[string]Units{}
	var mode string
	for _, c := range cs {
		if _, ok := prices[c.RuleCode]; ok {
			continue
		}
		m, rules, err := tx.PriceRules(ctx, c.RuleCode, at)
		if err != nil {
			return "", nil, err
		}
		if mode = m; mode == ModeFree {
			return mode, nil, nil
		}
		prices[c.RuleCode] = PriceAt(rules, at)
	}
	return mode, prices, nil
}

// AdjustBalance applies a.Units (either sign) with its event and a.Audit;
// ErrInsufficient if the balance would go below zero, ErrUserNotFound
// for an unknown user. A keyed adjustment whose event exists changes
// nothing: the same adjustment answers the balance recorded after it,
// another one ErrKeyReused.
func (l Ledger) AdjustBalance(ctx context.Context, a Adjustment) (Units, error) {
	after, _, err := l.adjustBalance(ctx, a)
	return after, err
}

// adjustBalance is AdjustBalance, and whether it replayed a keyed
// adjustment recorded before.
func (l Ledger) adjustBalance(ctx context.Context, a Adjustment) (after Units, replayed bool, err error) {
	after, replayed, err = l.adjustOnce(ctx, a)
	if a.Keyed && errors.Is(err, ErrDuplicateEvent) {
		// A repeat committed the key's event meanwhile (the user had no
		// balance row to lock yet): read what it recorded.
		after, replayed, err = l.adjustOnce(ctx, a)
		if errors.Is(err, ErrDuplicateEvent) {
			err = ErrKeyReused
		}
	}
	return after, replayed, err
}

func (l Ledger) adjustOnce(ctx context.Context, a Adjustment) (after Units, replayed bool, err error) {
	err = l.store.Tx(ctx, func(tx Tx) error {
		ok, err := tx.UserExists(ctx, a.UserID)
		switch {
		case err != nil:
			return err
		case !ok:
			return ErrUserNotFound
		}
		if a.Keyed {
			// The user's balance lock orders repeats of one adjustment:
			// the second reads the event the first committed. A user
			// with no balance row yet has nothing to lock: then the
			// event's id decides, and adjustBalance looks again.
			if _, err := tx.LockBalance(ctx, a.UserID); err != nil {
				return err
			}
			prev, found, err := tx.EventByID(ctx, a.EventID)
			switch {
			case err != nil:
				return err
			case found && prev.Kind == KindAdjust && prev.UserID == a.UserID && prev.Units == a.Units && prev.Reason == a.Reason:
				after, replayed = prev.BalanceAfter, true
				return nil
			case found:
				return ErrKeyReused
			}
		}
		switch {
		case a.Units >= 0:
			after, err = tx.Credit(ctx, a.UserID, a.Units, a.At)
		default:
			after, err = tx.Debit(ctx, a.UserID, -a.Units, a.At)
		}
		if err != nil {
			return err
		}
		err = tx.InsertEvents(ctx, []Event{{ID: a.EventID, UserID: a.UserID, Kind: KindAdjust, Units: a.Units,
			BalanceAfter: after, Reason: a.Reason, CreatedAt: a.At}})
		if err != nil {
			return err
		}
		return tx.AppendAudit(ctx, a.Audit.At(a.At))
	})
	return after, replayed, err
}

// ErrKeyReused: an Idempotency-Key already names another adjustment.
var ErrKeyReused = errors.New("billing: idempotency key names another adjustment")

// PayRecharge marks the order paid and credits its units with a recharge
// event in one unit of work; credited is false when it was already paid
// (nothing changes: a repeated notification). ErrOrderNotFound,
// ErrAmountMismatch (checked first) and ErrNotPayable (refunded) change
// nothing. An expired order is paid too: money the provider took is never
// ignored. Of concurrent notifications one pays and credits; the others
// find the order paid.
func (l Ledger) PayRecharge(ctx context.Context, p Payment) (Recharge, bool, error) {
	var r Recharge
	credited := false
	err := l.store.Tx(ctx, func(tx Tx) error {
		var err error
		if r, err = tx.LockRecharge(ctx, p.OrderNo); err != nil {
			return err
		}
		switch {
		case r.AmountFen != p.AmountFen:
			return fmt.Errorf("%w: paid %d fen, order %d", ErrAmountMismatch, p.AmountFen, r.AmountFen)
		case r.Status == RechargePaid:
			return nil
		case r.Status != RechargePending && r.Status != RechargeExpired:
			return ErrNotPayable
		}
		if r, err = tx.MarkPaid(ctx, r.ID, p.Provider, p.At); err != nil {
			return err
		}
		checkpoint(CrashAfterOrderUpdate)
		after, err := tx.Credit(ctx, r.UserID, r.Units, p.At)
		if err != nil {
			return err
		}
		checkpoint(CrashBeforeLedgerInsert)
		credited = true
		if err := tx.InsertEvents(ctx, []Event{{ID: p.EventID, UserID: r.UserID, Kind: KindRecharge, Units: r.Units,
			BalanceAfter: after, Reason: "order " + r.OrderNo, CreatedAt: p.At}}); err != nil {
			return err
		}
		checkpoint(CrashBeforeCommit)
		return nil
	})
	return r, credited, err
}

// RefundRecharge moves a paid order to refunded and debits what it
// credited, with a refund event and f.Audit. ErrOrderNotFound,
// ErrNotRefundable, or ErrInsufficient when the balance no longer covers
// the debit; all change nothing.
func (l Ledger) RefundRecharge(ctx context.Context, f Refund) (Recharge, Units, error) {
	var r Recharge
	var after Units
	err := l.store.Tx(ctx, func(tx Tx) error {
		var err error
		if r, err = tx.MarkRefunded(ctx, f.RechargeID, f.At); err != nil {
			return err
		}
		if after, err = tx.Debit(ctx, r.UserID, r.Units, f.At); err != nil {
			return err
		}
		err = tx.InsertEvents(ctx, []Event{{ID: f.EventID, UserID: r.UserID, Kind: KindRefund, Units: -r.Units,
			BalanceAfter: after, Reason: "refund of order " + r.OrderNo + ": " + f.Reason, CreatedAt: f.At}})
		if err != nil {
			return err
		}
		return tx.AppendAudit(ctx, f.Audit.At(f.At))
	})
	return r, after, err
}

// CreateRule stores a new rule with its audit entry.
func (l Ledger) CreateRule(ctx context.Context, r Rule, rec audit.Entry) error {
	return l.store.Tx(ctx, func(tx Tx) error {
		if err := tx.InsertRule(ctx, r); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, rec.At(r.CreatedAt))
	})
}

// UpdateRule changes a rule's price, description and end, with its audit
// entry; ErrRuleNotFound, or ErrRuleWindow when the rule would end before
// it starts.
func (l Ledger) UpdateRule(ctx context.Context, id string, ch RuleChange, rec audit.Entry) (Rule, error) {
	var r Rule
	err := l.store.Tx(ctx, func(tx Tx) error {
		old, err := tx.LockRule(ctx, id)
		if err != nil {
			return err
		}
		if r, err = old.apply(ch); err != nil {
			return err
		}
		if err := tx.SaveRule(ctx, r); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, rec.At(ch.At))
	})
	if err != nil {
		return Rule{}, err
	}
	return r, nil
}

// SetMode writes the global mode, records that an admin chose it, and
// writes rec.
func (l Ledger) SetMode(ctx context.Context, mode string, rec audit.Entry) error {
	return l.store.Tx(ctx, func(tx Tx) error {
		if err := tx.SetMode(ctx, mode, ChosenByAdmin); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, rec)
	})
}

// InitMode sets the mode, with rec, and records that the configuration
// chose it, unless a mode was chosen before (here or by SetMode) or a
// user exists (initModeDecides): a new installation takes its mode from
// configuration, an existing one keeps its own. It returns the mode in
// force and whether it set it; of concurrent callers at most one sets it.
func (l Ledger) InitMode(ctx context.Context, mode string, rec audit.Entry) (string, bool, error) {
	var set bool
	err := l.store.Tx(ctx, func(tx Tx) error {
		chosen, err := tx.ModeChosen(ctx)
		if err != nil {
			return err
		}
		users, err := tx.UsersExist(ctx)
		if err != nil || !initModeDecides(chosen, users) {
			return err
		}
		if set, err = tx.ClaimModeChoice(ctx, ChosenByConfig); err != nil || !set {
			return err
		}
		if err := tx.SetMode(ctx, mode, ChosenByConfig); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, rec)
	})
	if err != nil {
		return "", false, err
	}
	current, err := l.store.BillingMode(ctx)
	return current, set, err
}
