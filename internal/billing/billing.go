// Package billing is the prepaid token ledger: per-call charges by
// pricing rule, balances, the billing events that explain every balance
// change, and the global billing mode.
//
// Amounts are Units, integer thousandths of a token, so fractional prices
// (0.1, 0.5) are exact; the API shows them as token numbers. A balance
// only ever changes together with the one event row that records the
// change, in one transaction, so a balance always equals the sum of its
// user's events and can never go below zero.
package billing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"hostgate/internal/audit"
	"hostgate/internal/buckets"
	"hostgate/internal/paging"
)

// Units are thousandths of a token.
type Units int64

// UnitsPerToken is how many Units make one token.
const UnitsPerToken = 1000

// Tokens is u as a token number for the API.
func (u Units) Tokens() float64 { return float64(u) / UnitsPerToken }

// ParseTokens converts a token number from the API into Units, refusing
// more than three decimals and values out of range.
func ParseTokens(tokens float64) (Units, error) {
	if math.IsNaN(tokens) || math.IsInf(tokens, 0) || math.Abs(tokens) > 1e12 {
		return 0, fmt.Errorf("token amount out of range")
	}
	u := math.Round(tokens * UnitsPerToken)
	if math.Abs(u-tokens*UnitsPerToken) > 1e-6 {
		return 0, fmt.Errorf("token amounts have at most three decimals")
	}
	return Units(u), nil
}

// Billing modes.
const (
	ModeCharging = "charging"
	ModeFree     = "free"
)

// Event kinds.
const (
	KindCharge   = "charge"
	KindRecharge = "recharge"
	KindRefund   = "refund"
	KindAdjust   = "adjust"
)

// Event is one balance change.
type Event struct {
	ID     string
	UserID string
	Kind   string
	// Units is the signed change: negative for a charge.
	Units        Units
	BalanceAfter Units
	// RuleCode, HostID and APIKeyID describe a charge.
	RuleCode string
	HostID   string
	APIKeyID string
	// Reason explains an adjustment.
	Reason    string
	CreatedAt time.Time
}

// Rule is a price: Units per call of RuleCode, effective from ValidFrom
// until ValidUntil (nil: open-ended). Several rules of one code may exist
// over time; the effective one is the latest started and not ended.
type Rule struct {
	ID          string
	Code        string
	Units       Units
	Description string
	ValidFrom   time.Time
	ValidUntil  *time.Time
	CreatedAt   time.Time
}

// Effective reports whether r applies at t.
func (r Rule) Effective(t time.Time) bool {
	return !r.ValidFrom.After(t) && (r.ValidUntil == nil || r.ValidUntil.After(t))
}

// InForce returns, for each code, the rule in force at t: of the rules
// that are Effective at t, the latest started (the choice a charge makes),
// sorted by code.
func InForce(rules []Rule, t time.Time) []Rule {
	best := map[string]Rule{}
	for _, r := range rules {
		if !r.Effective(t) {
			continue
		}
		if b, ok := best[r.Code]; !ok || r.ValidFrom.After(b.ValidFrom) {
			best[r.Code] = r
		}
	}
	out := make([]Rule, 0, len(best))
	for _, r := range best {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Rule) int { return strings.Compare(a.Code, b.Code) })
	return out
}

// RuleChange is an update of a rule; nil fields stay as they are.
type RuleChange struct {
	Units       *Units
	Description *string
	// ValidUntil ends the rule (a zero time reopens it).
	ValidUntil *time.Time
	At         time.Time
}

// ErrRuleNotFound: no rule with that id.
var ErrRuleNotFound = errors.New("billing: no such pricing rule")

// ErrRuleWindow: a change would end a rule before it starts.
var ErrRuleWindow = errors.New("billing: valid_until must be after valid_from")

// Summary is billing activity since a moment.
type Summary struct {
	PaidFen     int64 // recharges paid since
	RefundedFen int64 // recharges refunded since
	Charges     int64 // charged client API calls since
	Charged     Units // tokens those calls took
	Pending     int64 // orders awaiting payment now
}

// Activity is the billing of one time bucket (package buckets): the
// charged calls and recharges whose time falls in it.
type Activity struct {
	// Start is the bucket's start, UTC.
	Start       time.Time
	Charges     int64 // charged client API calls
	Charged     Units // tokens those calls took
	PaidFen     int64 // recharges paid (by paid_at)
	RefundedFen int64 // recharges refunded (by refunded_at)
}

// RevenueFen is what the bucket's recharges brought in: paid minus
// refunded, as the dashboard's "today" counts it.
func (a Activity) RevenueFen() int64 { return a.PaidFen - a.RefundedFen }

// Charge is one call to be charged.
type Charge struct {
	EventID  string
	UserID   string
	RuleCode string
	HostID   string
	APIKeyID string
	At       time.Time
}

// Charged is the outcome of a charge: Units 0 with Charged false when the
// mode is free or the rule's price is zero (no event is written then).
type Charged struct {
	Charged      bool
	Units        Units
	BalanceAfter Units
}

// ChargeResult is one charge's outcome in a batch: Err is nil or
// ErrInsufficient.
type ChargeResult struct {
	Charged
	Err error
}

// Adjustment is an admin's manual balance change.
type Adjustment struct {
	EventID string
	// Keyed: EventID names the adjustment for good (an admin's
	// Idempotency-Key): when an event of that id exists, AdjustBalance
	// changes nothing and answers what it recorded.
	Keyed  bool
	UserID string
	Units  Units
	Reason string
	At     time.Time
	// Audit is written in the same transaction.
	Audit audit.Entry
}

// Storage errors the service maps to client errors.
var (
	// ErrInsufficient: the balance is below the amount to take.
	ErrInsufficient = errors.New("billing: insufficient balance")
	// ErrUserNotFound: no such user.
	ErrUserNotFound = errors.New("billing: user not found")
	// ErrDuplicateEvent: an event with this id is already recorded.
	ErrDuplicateEvent = errors.New("billing: duplicate event id")
)

// Store keeps balances, events, rules and the mode. It stores: what a
// change is, the rules of it, is decided in a unit of work (Tx) by Ledger.
type Store interface {
	// Tx runs fn in one unit of work: everything fn does through its Tx
	// commits when fn returns nil and nothing does when it returns an
	// error, which Tx returns.
	Tx(ctx context.Context, fn func(Tx) error) error
	// Balance is the user's balance (zero for a user never funded).
	Balance(ctx context.Context, userID string) (Units, error)
	// ListBillingEvents pages the user's events, newest first.
	ListBillingEvents(ctx context.Context, userID string, p paging.Page) ([]Event, int, error)
	// SumBillingEvents is the sum of the user's event units (the ledger check).
	SumBillingEvents(ctx context.Context, userID string) (Units, error)
	// ListRules returns the rules by code and start; expired ones only
	// when includeExpired (at now).
	ListRules(ctx context.Context, includeExpired bool, now time.Time) ([]Rule, error)
	// Summary adds up billing since a moment (the back office's "today").
	Summary(ctx context.Context, since time.Time) (Summary, error)
	// BillingMode reads the global mode.
	BillingMode(ctx context.Context) (string, error)
	// Activity adds up billing per bucket of unit from from (inclusive)
	// to to (exclusive), grouped in the store: only buckets with
	// something in them, oldest first.
	Activity(ctx context.Context, unit buckets.Unit, from, to time.Time) ([]Activity, error)
}

// Tx is the plain storage operations billing decides with, inside one
// unit of work (Store.Tx). They neither check nor decide anything beyond
// what the schema keeps (a balance never below zero): the rules are
// Ledger's.
type Tx interface {
	audit.Appender
	// PriceRules reads the billing mode and the rules of code effective at
	// at (PriceAt chooses among them).
	PriceRules(ctx context.Context, code string, at time.Time) (mode string, rules []Rule, err error)
	// LockBalance reads the user's balance (zero for none) and locks it
	// until the unit of work ends.
	LockBalance(ctx context.Context, userID string) (Units, error)
	// SetBalance writes a balance read with LockBalance.
	SetBalance(ctx context.Context, userID string, units Units, at time.Time) error
	// Credit adds units to the user's balance, creating it, and returns
	// the balance after.
	Credit(ctx context.Context, userID string, units Units, at time.Time) (Units, error)
	// Debit takes units from the user's balance only where the balance
	// covers them, and returns the balance after; ErrInsufficient, and
	// nothing taken, where it does not.
	Debit(ctx context.Context, userID string, units Units, at time.Time) (Units, error)
	// InsertEvents records balance changes; ErrDuplicateEvent, and
	// nothing recorded, when one's id is taken.
	InsertEvents(ctx context.Context, events []Event) error
	// EventByID reads one recorded balance change; ok is false for none.
	EventByID(ctx context.Context, id string) (e Event, ok bool, err error)
	// UserExists reports whether the user exists.
	UserExists(ctx context.Context, userID string) (bool, error)
	// UsersExist reports whether any user exists.
	UsersExist(ctx context.Context) (bool, error)
	// InsertRule stores a new rule.
	InsertRule(ctx context.Context, r Rule) error
	// LockRule reads a rule and locks it until the unit of work ends;
	// ErrRuleNotFound.
	LockRule(ctx context.Context, id string) (Rule, error)
	// SaveRule writes a rule read with LockRule: its price, description
	// and end.
	SaveRule(ctx context.Context, r Rule) error
	// ModeChosen reports whether a choice of the billing mode is recorded.
	ModeChosen(ctx context.Context) (bool, error)
	// ClaimModeChoice records that by chose the mode unless a choice is
	// recorded, and reports whether it recorded it: of concurrent units of
	// work at most one does.
	ClaimModeChoice(ctx context.Context, by string) (bool, error)
	// SetMode writes the global mode and records who chose it.
	SetMode(ctx context.Context, mode, by string) error
	// LockRecharge reads the recharge order numbered orderNo and locks it
	// until the unit of work ends; ErrOrderNotFound.
	LockRecharge(ctx context.Context, orderNo string) (Recharge, error)
	// MarkPaid moves a recharge order to paid at at by provider and
	// returns it.
	MarkPaid(ctx context.Context, id, provider string, at time.Time) (Recharge, error)
	// MarkRefunded moves a paid recharge order to refunded and returns
	// it; ErrOrderNotFound, or ErrNotRefundable when it is not paid.
	MarkRefunded(ctx context.Context, rechargeID string, at time.Time) (Recharge, error)
}

// Who chose the billing mode (Tx.SetMode): an admin, or the
// configuration of a new installation. The migrations' default mode is
// not a choice.
const (
	ChosenByAdmin  = "admin"
	ChosenByConfig = "config"
)

// LoneCharger is a Store that charges a lone call in fewer statements
// than the unit of work takes (one on PostgreSQL): it takes the price
// from the balance where PlanBatch's rule says to (not in free mode, a
// price above zero, a balance that covers it; storetest shows they agree
// on random batches), atomically, and reports what it found. Ledger uses
// it, when the Store is one, for a batch of one, and decides what the
// outcome means (loneResult).
type LoneCharger interface {
	ChargeOne(ctx context.Context, c Charge) (LoneTake, error)
}

// LoneTake is what a LoneCharger found: whether it took the price, the
// price and the balance after; when it took nothing, the mode and the
// price in force at the charge's time.
type LoneTake struct {
	Taken        bool
	Mode         string
	Price        Units
	BalanceAfter Units
}

// loneResult is the outcome of a lone charge: charged when the price was
// taken; nothing in free mode or at no price; otherwise the balance did
// not cover the price.
func loneResult(t LoneTake) ChargeResult {
	switch {
	case t.Taken:
		return ChargeResult{Charged: Charged{Charged: true, Units: t.Price, BalanceAfter: t.BalanceAfter}}
	case t.Mode == ModeFree || t.Price <= 0:
		return ChargeResult{}
	}
	return ChargeResult{Err: ErrInsufficient}
}

// Storage is all billing keeps: the ledger and the recharge orders.
type Storage interface {
	Store
	RechargeStore
}
