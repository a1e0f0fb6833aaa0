package httpapi

import (
	"context"
	"time"

	"hostgate/internal/billing"
)

// PricingRule is a price as the API shows it.
type PricingRule struct {
	ID          string     `json:"id"`
	Code        string     `json:"code"`
	TokenAmount float64    `json:"token_amount" doc:"Price in tokens per charged call"`
	Description string     `json:"description,omitempty"`
	ValidFrom   time.Time  `json:"valid_from"`
	ValidUntil  *time.Time `json:"valid_until,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	Effective   bool       `json:"effective" doc:"Whether the rule's window contains now (the latest started effective rule of a code is the price)"`
}

func pricingRuleOf(r billing.Rule, now time.Time) PricingRule {
	return PricingRule{ID: r.ID, Code: r.Code, TokenAmount: r.Units.Tokens(), Description: r.Description,
		ValidFrom: r.ValidFrom, ValidUntil: r.ValidUntil, CreatedAt: r.CreatedAt, Effective: r.Effective(now)}
}

type rulesIn struct {
	IncludeExpired bool `query:"include_expired" doc:"Also list rules whose window has ended"`
}

type rulesOut struct {
	Body struct {
		Items []PricingRule `json:"items"`
	}
}

func (s *Server) adminListRules(ctx context.Context, in *rulesIn) (*rulesOut, error) {
	rules, err := s.cfg.Billing.Rules(ctx, in.IncludeExpired)
	if err != nil {
		return nil, err
	}
	out := &rulesOut{}
	out.Body.Items = make([]PricingRule, len(rules))
	now := time.Now()
	for i, r := range rules {
		out.Body.Items[i] = pricingRuleOf(r, now)
	}
	return out, nil
}

type createRuleIn struct {
	Body struct {
		Code        string     `json:"code" maxLength:"64" doc:"Rule code, e.g. control.dir.per_call"`
		TokenAmount float64    `json:"token_amount" minimum:"0" doc:"Price in tokens, at most three decimals"`
		Description string     `json:"description,omitempty" maxLength:"1000"`
		ValidFrom   *time.Time `json:"valid_from,omitempty" doc:"Start (default now)"`
		ValidUntil  *time.Time `json:"valid_until,omitempty" doc:"End (default open)"`
	}
}

type ruleOut struct{ Body PricingRule }

func (s *Server) adminCreateRule(ctx context.Context, in *createRuleIn) (*ruleOut, error) {
	b := in.Body
	r, err := s.cfg.Billing.CreateRule(ctx, actor(ctx), billing.NewRule{Code: b.Code, Tokens: b.TokenAmount,
		Description: b.Description, ValidFrom: b.ValidFrom, ValidUntil: b.ValidUntil})
	if err != nil {
		return nil, err
	}
	return &ruleOut{Body: pricingRuleOf(r, time.Now())}, nil
}

type updateRuleIn struct {
	ID   string `path:"id" format:"uuid" doc:"Pricing rule id"`
	Body struct {
		TokenAmount *float64   `json:"token_amount,omitempty" minimum:"0" doc:"New price, effective at once"`
		Description *string    `json:"description,omitempty" maxLength:"1000"`
		ValidUntil  *time.Time `json:"valid_until,omitempty" doc:"End the rule at this time"`
	}
}

func (s *Server) adminUpdateRule(ctx context.Context, in *updateRuleIn) (*ruleOut, error) {
	b := in.Body
	r, err := s.cfg.Billing.UpdateRule(ctx, actor(ctx), in.ID, billing.RuleUpdate{Tokens: b.TokenAmount,
		Description: b.Description, ValidUntil: b.ValidUntil})
	if err != nil {
		return nil, err
	}
	return &ruleOut{Body: pricingRuleOf(r, time.Now())}, nil
}
