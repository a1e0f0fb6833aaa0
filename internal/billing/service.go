package billing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/buckets"
	"hostgate/internal/groupcommit"
	"hostgate/internal/paging"
)

// CodeInsufficientBalance is the spec's 402 code.
const CodeInsufficientBalance = "insufficient_balance"

// MaxReasonLen bounds an adjustment's reason.
const MaxReasonLen = 200

// Service charges calls and reports balances.
type Service struct {
	store     Store
	ledger    Ledger
	recharges RechargeStore
	now       func() time.Time
	obs       Observer
	charges   *groupcommit.Batcher[Charge, ChargeResult]
}

// NewService wires the billing service.
func NewService(st Storage) *Service {
	l := NewLedger(st)
	return &Service{store: st, ledger: l, recharges: st, now: time.Now, charges: newChargeBatcher(l)}
}

// newEventID names a charge event. Version 7 UUIDs grow with time, so the
// ledger's primary key index takes each new charge at its end instead of
// at a random page.
func newEventID() string {
	if id, err := uuid.NewV7(); err == nil {
		return id.String()
	}
	return uuid.NewString()
}

// ChargeCall charges one client API call of rule code to userID before it
// runs; a balance below the price is 402 insufficient_balance and nothing
// changes. Concurrent calls share transactions (batch.go); each returns
// once its charge is committed or refused. The outcome is noted in the
// Receipt ctx carries (WithReceipt): the units taken and the balance
// after, or, refused, nothing taken and the balance as it is.
func (s *Service) ChargeCall(ctx context.Context, userID, apiKeyID, hostID, code string) (Charged, error) {
	r, err := s.charges.Do(Charge{
		EventID: newEventID(), UserID: userID, RuleCode: code,
		HostID: hostID, APIKeyID: apiKeyID, At: s.now().UTC(),
	})
	if err == nil {
		err = r.Err
	}
	c := r.Charged
	outcome := "charged"
	switch {
	case errors.Is(err, ErrInsufficient):
		outcome = CodeInsufficientBalance
		err = apperr.New(CodeInsufficientBalance, "the balance is too low for this call; recharge to continue")
	case err != nil:
		outcome = "error"
	}
	if s.obs != nil {
		s.obs.ChargeDone(code, outcome)
	}
	switch {
	case outcome == CodeInsufficientBalance:
		// Nothing was taken; the answer still tells the balance it fell short of.
		if bal, berr := s.store.Balance(ctx, userID); berr == nil {
			Note(ctx, Spent{Balance: bal, HasBalance: true})
		} else {
			Note(ctx, Spent{})
		}
	case err == nil:
		Note(ctx, Spent{Units: c.Units, Balance: c.BalanceAfter, HasBalance: c.Charged})
	}
	if err != nil {
		return Charged{}, err
	}
	return c, nil
}

// Observer learns the outcome of each call's charge ("charged",
// "insufficient_balance" or "error") by pricing rule. The hub's metrics
// implement it.
type Observer interface {
	ChargeDone(rule, outcome string)
}

// Observe sets the observer of charges; call it before any charge.
func (s *Service) Observe(o Observer) { s.obs = o }

// Balance is the user's balance.
func (s *Service) Balance(ctx context.Context, userID string) (Units, error) {
	return s.store.Balance(ctx, userID)
}

// Events pages the user's billing events, newest first.
func (s *Service) Events(ctx context.Context, userID string, p paging.Page) (paging.Result[Event], error) {
	items, total, err := s.store.ListBillingEvents(ctx, userID, p)
	return paging.NewResult(items, total, p), err
}

// MaxIdempotencyKeyLen is the longest Idempotency-Key an adjustment takes.
const MaxIdempotencyKeyLen = 255

// Adjust changes a user's balance by tokens on an admin's behalf, with a
// reason, audited as user.balance.adjust. It returns the balance after.
//
// key, the request's Idempotency-Key (empty for none), names the
// adjustment for good, per admin: the same key with the same user, tokens
// and reason changes nothing again and answers the balance recorded after
// the first (replayed true, no audit row); with anything else it is
// refused, 409 idempotency_key_reused. Without a key every call is an
// adjustment of its own.
func (s *Service) Adjust(ctx context.Context, actor audit.Actor, userID string, tokens float64, reason, key string) (after Units, replayed bool, err error) {
	u, err := ParseTokens(tokens)
	if err != nil || u == 0 {
		return 0, false, apperr.New(apperr.CodeInvalidBody, "tokens must be a non-zero number with at most three decimals")
	}
	reason = strings.TrimSpace(reason)
	if reason == "" || utf8.RuneCountInString(reason) > MaxReasonLen {
		return 0, false, apperr.New(apperr.CodeInvalidBody, "reason must be 1 to 200 characters")
	}
	a := Adjustment{EventID: uuid.NewString(), UserID: userID, Units: u, Reason: reason, At: s.now().UTC()}
	if key != "" {
		if !validKey(key) {
			return 0, false, apperr.New(apperr.CodeInvalidBody,
				fmt.Sprintf("Idempotency-Key must be 1 to %d visible ASCII characters", MaxIdempotencyKeyLen))
		}
		a.EventID, a.Keyed = keyedEventID(actor.AdminID, key), true
	}
	a.Audit = actor.Entry(audit.ActionUserBalanceAdjust, "user", userID).
		WithDetail(map[string]any{"tokens": u.Tokens(), "reason": reason})
	after, replayed, err = s.ledger.adjustBalance(ctx, a)
	switch {
	case errors.Is(err, ErrUserNotFound):
		return 0, false, apperr.NotFound("user")
	case errors.Is(err, ErrInsufficient):
		return 0, false, apperr.New(CodeInsufficientBalance, "the adjustment would take the balance below zero")
	case errors.Is(err, ErrKeyReused):
		return 0, false, apperr.New(CodeIdempotencyKeyReused, "this Idempotency-Key already names another adjustment")
	}
	return after, replayed, err
}

// CodeIdempotencyKeyReused: an Idempotency-Key sent again with another
// request (409).
const CodeIdempotencyKeyReused = "idempotency_key_reused"

// keyedEventID is the event id of admin's adjustment keyed key: the
// same for every repeat, distinct across admins.
func keyedEventID(adminID, key string) string {
	h := sha256.Sum256([]byte(adminID + "\x00" + key))
	return "adj_" + hex.EncodeToString(h[:16])
}

func validKey(key string) bool {
	if len(key) == 0 || len(key) > MaxIdempotencyKeyLen {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

// SetMode switches the global billing mode, audited as
// billing.mode_change. The caller has checked the admin's step-up.
func (s *Service) SetMode(ctx context.Context, actor audit.Actor, mode string) error {
	if mode != ModeFree && mode != ModeCharging {
		return apperr.New(apperr.CodeInvalidBody, "mode must be free or charging")
	}
	old, err := s.store.BillingMode(ctx)
	if err != nil {
		return err
	}
	entry := actor.Entry(audit.ActionBillingModeChange, "billing", "mode").WithDetail(map[string]string{"from": old, "to": mode})
	return s.ledger.SetMode(ctx, mode, entry)
}

// InitMode sets the billing mode of a new installation (no mode chosen
// yet, no user registered) from configuration, audited as
// billing.mode_change by the "config" actor. An installation that has a
// mode keeps it; changing that takes an admin's step-up (SetMode). It
// returns the mode in force and whether it set it.
func (s *Service) InitMode(ctx context.Context, mode string) (string, bool, error) {
	if mode != ModeFree && mode != ModeCharging {
		return "", false, apperr.New(apperr.CodeInvalidBody, "mode must be free or charging")
	}
	old, err := s.store.BillingMode(ctx)
	if err != nil {
		return "", false, err
	}
	entry := audit.ConfigActor.Entry(audit.ActionBillingModeChange, "billing", "mode").
		WithDetail(map[string]string{"from": old, "to": mode, "source": "HOSTGATE_BILLING_MODE"})
	return s.ledger.InitMode(ctx, mode, entry)
}

// Today is the billing summary of the current UTC day.
func (s *Service) Today(ctx context.Context) (Summary, error) {
	now := s.now().UTC()
	return s.store.Summary(ctx, time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC))
}

// Activity is the billing of each bucket of unit from from to to, only
// the buckets with something in them, oldest first (dashboard.Service
// fills the others).
func (s *Service) Activity(ctx context.Context, unit buckets.Unit, from, to time.Time) ([]Activity, error) {
	return s.store.Activity(ctx, unit, from, to)
}

// Mode is the global billing mode.
func (s *Service) Mode(ctx context.Context) (string, error) { return s.store.BillingMode(ctx) }

// Rules lists the pricing rules.
func (s *Service) Rules(ctx context.Context, includeExpired bool) ([]Rule, error) {
	return s.store.ListRules(ctx, includeExpired, s.now().UTC())
}

// Prices is the rule in force now of each code, sorted by code: the
// price the next call of that code is charged (unless the mode is free).
func (s *Service) Prices(ctx context.Context) ([]Rule, error) {
	now := s.now().UTC()
	rules, err := s.store.ListRules(ctx, false, now)
	if err != nil {
		return nil, err
	}
	return InForce(rules, now), nil
}

// CheckLedger reports whether the user's balance equals the sum of the
// user's events, with both figures.
func (s *Service) CheckLedger(ctx context.Context, userID string) (balance, sum Units, err error) {
	if balance, err = s.store.Balance(ctx, userID); err != nil {
		return 0, 0, err
	}
	sum, err = s.store.SumBillingEvents(ctx, userID)
	return balance, sum, err
}

// PriceNow is what one call of rule code costs now: 0 in free mode, else
// the price of the rule in force.
func (s *Service) PriceNow(ctx context.Context, code string) (Units, error) {
	mode, err := s.store.BillingMode(ctx)
	if err != nil || mode == ModeFree {
		return 0, err
	}
	now := s.now().UTC()
	rules, err := s.store.ListRules(ctx, false, now)
	if err != nil {
		return 0, err
	}
	var mine []Rule
	for _, r := range rules {
		if r.Code == code {
			mine = append(mine, r)
		}
	}
	return PriceAt(mine, now), nil
}
