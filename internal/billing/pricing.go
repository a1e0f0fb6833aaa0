package billing

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
	"hostgate/internal/audit"
)

// ruleCodeRE is the shape of a rule code: control.dir.per_call.
var ruleCodeRE = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)*$`)

// MaxDescriptionLen bounds a rule's description.
const MaxDescriptionLen = 200

// NewRule is an admin's new pricing rule.
type NewRule struct {
	Code        string
	Tokens      float64
	Description string
	// ValidFrom defaults to now; ValidUntil to open-ended.
	ValidFrom  *time.Time
	ValidUntil *time.Time
}

func invalid(msg string) error { return apperr.New(apperr.CodeInvalidBody, msg) }

func parsePrice(tokens float64) (Units, error) {
	u, err := ParseTokens(tokens)
	if err != nil || u < 0 {
		return 0, invalid("token_amount must be zero or more, with at most three decimals")
	}
	return u, nil
}

func checkDescription(d string) error {
	if utf8.RuneCountInString(d) > MaxDescriptionLen {
		return invalid("description must be at most 200 characters")
	}
	return nil
}

// CreateRule adds a pricing rule, audited as pricing.create. A rule that
// starts now takes effect on the next call (the latest started rule of a
// code wins).
func (s *Service) CreateRule(ctx context.Context, actor audit.Actor, n NewRule) (Rule, error) {
	now := s.now().UTC()
	if len(n.Code) > 64 || !ruleCodeRE.MatchString(n.Code) {
		return Rule{}, invalid("code must be dotted lower-case words, e.g. control.dir.per_call, at most 64 characters")
	}
	units, err := parsePrice(n.Tokens)
	if err != nil {
		return Rule{}, err
	}
	if err := checkDescription(n.Description); err != nil {
		return Rule{}, err
	}
	r := Rule{ID: uuid.NewString(), Code: n.Code, Units: units, Description: strings.TrimSpace(n.Description),
		ValidFrom: now, ValidUntil: n.ValidUntil, CreatedAt: now}
	if n.ValidFrom != nil {
		r.ValidFrom = n.ValidFrom.UTC()
	}
	if r.ValidUntil != nil && !r.ValidUntil.After(r.ValidFrom) {
		return Rule{}, invalid("valid_until must be after valid_from")
	}
	entry := actor.Entry(audit.ActionPricingCreate, "pricing_rule", r.ID).
		WithDetail(map[string]any{"code": r.Code, "token_amount": units.Tokens()})
	return r, s.ledger.CreateRule(ctx, r, entry)
}

// RuleUpdate is an admin's change of a rule; nil fields stay.
type RuleUpdate struct {
	Tokens      *float64
	Description *string
	ValidUntil  *time.Time
}

// UpdateRule changes a rule, effective at once, audited as pricing.update.
func (s *Service) UpdateRule(ctx context.Context, actor audit.Actor, id string, u RuleUpdate) (Rule, error) {
	ch := RuleChange{Description: u.Description, ValidUntil: u.ValidUntil, At: s.now().UTC()}
	detail := map[string]any{}
	if u.Tokens != nil {
		units, err := parsePrice(*u.Tokens)
		if err != nil {
			return Rule{}, err
		}
		ch.Units, detail["token_amount"] = &units, units.Tokens()
	}
	if u.Description != nil {
		if err := checkDescription(*u.Description); err != nil {
			return Rule{}, err
		}
	}
	if ch.Units == nil && ch.Description == nil && ch.ValidUntil == nil {
		return Rule{}, invalid("nothing to change: give token_amount, description or valid_until")
	}
	entry := actor.Entry(audit.ActionPricingUpdate, "pricing_rule", id).WithDetail(detail)
	r, err := s.ledger.UpdateRule(ctx, id, ch, entry)
	if errors.Is(err, ErrRuleNotFound) {
		return Rule{}, apperr.NotFound("pricing rule")
	}
	if errors.Is(err, ErrRuleWindow) {
		return Rule{}, invalid("valid_until must be after the rule's valid_from")
	}
	return r, err
}
