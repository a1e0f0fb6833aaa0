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
	UserID  string
	Units   Units
	Reason  string
	At      time.Time
	// Audit is written in the same transaction.
	Audit audit.Entry
}

// Storage errors the service maps to client errors.
var (
	// ErrInsufficient: the balance is below the amount to take.
	ErrInsufficient = errors.New("billing: insufficient balance")
	// ErrUserNotFound: no such user.
	ErrUserNotFound = errors.New("billing: user not found")
)

// Store keeps balances, events, rules and the mode.
type Store interface {
	// ChargeCalls charges a batch of calls in one transaction that also
	// reads the mode and the prices in force: each charge, in order, takes
	// the effective price of its RuleCode from its user's balance and
	// records its event, or, where the balance no longer covers the price,
	// gets ErrInsufficient and changes nothing. In free mode, or at price
	// zero, nothing is written for it. An error fails the whole batch and
	// commits nothing.
	ChargeCalls(ctx context.Context, cs []Charge) ([]ChargeResult, error)
	// AdjustBalance applies a.Units (either sign) with its event;
	// ErrInsufficient if the balance would go below zero,
	// ErrUserNotFound for an unknown user.
	AdjustBalance(ctx context.Context, a Adjustment) (Units, error)
	// Balance is the user's balance (zero for a user never funded).
	Balance(ctx context.Context, userID string) (Units, error)
	// ListBillingEvents pages the user's events, newest first.
	ListBillingEvents(ctx context.Context, userID string, p paging.Page) ([]Event, int, error)
	// SumBillingEvents is the sum of the user's event units (the ledger check).
	SumBillingEvents(ctx context.Context, userID string) (Units, error)
	// ListRules returns the rules by code and start; expired ones only
	// when includeExpired (at now).
	ListRules(ctx context.Context, includeExpired bool, now time.Time) ([]Rule, error)
	// CreateRule stores a new rule with its audit entry.
	CreateRule(ctx context.Context, r Rule, rec audit.Entry) error
	// UpdateRule changes a rule's price, description and end, with its
	// audit entry, in one transaction; ErrRuleNotFound.
	UpdateRule(ctx context.Context, id string, ch RuleChange, rec audit.Entry) (Rule, error)
	// Summary adds up billing since a moment (the back office's "today").
	Summary(ctx context.Context, since time.Time) (Summary, error)
	// BillingMode and SetBillingMode read and write the global mode;
	// SetBillingMode also records that the mode was chosen.
	BillingMode(ctx context.Context) (string, error)
	SetBillingMode(ctx context.Context, mode string, rec audit.Entry) error
	// InitBillingMode sets the mode, with rec, and records that it was
	// chosen, in one transaction, unless a mode was chosen before (here
	// or by SetBillingMode) or a user exists: a new installation takes
	// its mode from configuration, an existing one keeps its own. It
	// returns the mode in force and whether it set it; of concurrent
	// callers at most one sets it.
	InitBillingMode(ctx context.Context, mode string, rec audit.Entry) (string, bool, error)
}
