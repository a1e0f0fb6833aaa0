package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/billing"
	"hostgate/internal/paging"
)

// BillingEvent is one balance change as the API shows it.
type BillingEvent struct {
	ID           string    `json:"id"`
	Kind         string    `json:"kind" enum:"charge,recharge,refund,adjust"`
	Tokens       float64   `json:"tokens" doc:"Signed change in tokens: negative for a charge"`
	BalanceAfter float64   `json:"balance_after"`
	RuleCode     string    `json:"rule_code,omitempty" doc:"Pricing rule of a charge"`
	HostID       string    `json:"host_id,omitempty"`
	APIKeyID     string    `json:"api_key_id,omitempty"`
	Reason       string    `json:"reason,omitempty" doc:"An adjustment's reason"`
	CreatedAt    time.Time `json:"created_at"`
}

func billingEventOf(e billing.Event) BillingEvent {
	return BillingEvent{ID: e.ID, Kind: e.Kind, Tokens: e.Units.Tokens(), BalanceAfter: e.BalanceAfter.Tokens(),
		RuleCode: e.RuleCode, HostID: e.HostID, APIKeyID: e.APIKeyID, Reason: e.Reason, CreatedAt: e.CreatedAt}
}

type balanceOut struct {
	Body struct {
		Tokens float64 `json:"tokens" doc:"Balance in tokens (fractions to 0.001)"`
	}
}

type adjustIn struct {
	ID             string `path:"id" format:"uuid" doc:"User id"`
	IdempotencyKey string `header:"Idempotency-Key" maxLength:"255" doc:"Optional. Names this adjustment for good, per admin: a repeat with the same user, tokens and reason changes nothing and answers the same; with anything else 409 idempotency_key_reused (docs/billing.md)"`
	Body           struct {
		Tokens float64 `json:"tokens" doc:"Signed change in tokens, at most three decimals; the balance cannot go below zero"`
		Reason string  `json:"reason" maxLength:"1000" doc:"Why, 1 to 200 characters; kept in the event and the audit log"`
	}
}

type adjustOut struct {
	Body struct {
		OK           bool    `json:"ok"`
		BalanceAfter float64 `json:"balance_after"`
	}
}

func (s *Server) userBillingRoutes() {
	tags := []string{"user"}
	op(s, huma.Operation{OperationID: "getBalance", Method: http.MethodGet, Path: "/v1/user/billing/balance",
		Summary: "The token balance", Tags: tags, Security: userSecurity}, s.getBalance)
	op(s, huma.Operation{OperationID: "listBillingEvents", Method: http.MethodGet, Path: "/v1/user/billing/events",
		Summary: "Billing events, newest first: every charge, recharge, refund and adjustment", Tags: tags,
		Security: userSecurity}, s.listBillingEvents)
	op(s, huma.Operation{OperationID: "listPrices", Method: http.MethodGet, Path: "/v1/user/billing/prices",
		Summary:     "The price in force now of each pricing code, sorted by code",
		Description: "Each code's price is the one its next call is charged (nothing is charged while the billing mode is free).",
		Tags:        tags, Security: userSecurity}, s.listPrices)
}

// Price is a pricing code's price in force, as the user console shows it.
type Price struct {
	Code        string  `json:"code"`
	TokenAmount float64 `json:"token_amount" doc:"Price in tokens per charged call"`
	Description string  `json:"description"`
}

type pricesOut struct {
	Body struct {
		Items []Price `json:"items"`
	}
}

func (s *Server) listPrices(ctx context.Context, _ *struct{}) (*pricesOut, error) {
	rules, err := s.cfg.Billing.Prices(ctx)
	if err != nil {
		return nil, err
	}
	out := &pricesOut{}
	out.Body.Items = make([]Price, len(rules))
	for i, r := range rules {
		out.Body.Items[i] = Price{Code: r.Code, TokenAmount: r.Units.Tokens(), Description: r.Description}
	}
	return out, nil
}

func (s *Server) getBalance(ctx context.Context, _ *struct{}) (*balanceOut, error) {
	u, err := s.cfg.Billing.Balance(ctx, userOf(ctx).UserID)
	if err != nil {
		return nil, err
	}
	out := &balanceOut{}
	out.Body.Tokens = u.Tokens()
	return out, nil
}

func (s *Server) listBillingEvents(ctx context.Context, in *PageParams) (*pagedOut[BillingEvent], error) {
	res, err := s.cfg.Billing.Events(ctx, userOf(ctx).UserID, in.page())
	if err != nil {
		return nil, err
	}
	return &pagedOut[BillingEvent]{Body: paging.Map(res, billingEventOf)}, nil
}

func (s *Server) adminAdjustBalance(ctx context.Context, in *adjustIn) (*adjustOut, error) {
	after, _, err := s.cfg.Billing.Adjust(ctx, actor(ctx), in.ID, in.Body.Tokens, in.Body.Reason, in.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	out := &adjustOut{}
	out.Body.OK, out.Body.BalanceAfter = true, after.Tokens()
	return out, nil
}
