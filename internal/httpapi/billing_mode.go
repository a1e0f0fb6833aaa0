package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/admin"
	"hostgate/internal/audit"
	"hostgate/internal/billing"
)

type stepUpIn struct {
	Body struct {
		Password string `json:"password" maxLength:"1024" doc:"The signed-in admin's password"`
	}
}

type stepUpOut struct {
	Body struct {
		StepUpToken string `json:"step_up_token" doc:"Send as X-Step-Up-Token with the sensitive change; single use"`
		ExpiresIn   int    `json:"expires_in" doc:"Seconds it stays valid"`
	}
}

type modeOut struct {
	Body struct {
		Mode        string `json:"mode" enum:"free,charging"`
		RulesTotal  int    `json:"rules_total" doc:"Pricing rules in effect now"`
		RulesPaused int    `json:"rules_paused" doc:"Of those, how many the mode pauses (all in free mode)"`
	}
}

type setModeIn struct {
	StepUp string `header:"X-Step-Up-Token" doc:"Token from POST /v1/admin/auth/step-up"`
	Body   struct {
		Mode string `json:"mode" enum:"free,charging"`
	}
}

func (s *Server) billingModeRoutes() {
	op(s, huma.Operation{OperationID: "adminStepUp", Method: http.MethodPost, Path: "/v1/admin/auth/step-up",
		Summary: "Re-enter the password for a short-lived, single-use step-up token", Tags: []string{"admin"},
		Security: adminSecurity}, s.adminStepUp)
	get, post := adminDoc(http.MethodGet), adminDoc(http.MethodPost)
	adminOp(s, admin.Anyone, "", get("/v1/admin/billing/mode", "adminGetBillingMode", "The billing mode"), s.adminGetMode)
	adminOp(s, admin.Allow(admin.Finance), audit.ActionBillingModeChange, post("/v1/admin/billing/mode", "adminSetBillingMode",
		"Switch the billing mode; needs a step-up token"), s.adminSetMode)
}

func (s *Server) adminStepUp(ctx context.Context, in *stepUpIn) (*stepUpOut, error) {
	p, ok := adminOf(ctx)
	if !ok {
		return nil, forbidden()
	}
	tok, err := s.cfg.Admins.StepUp(ctx, p, in.Body.Password)
	if err != nil {
		return nil, err
	}
	out := &stepUpOut{}
	out.Body.StepUpToken, out.Body.ExpiresIn = tok, int(admin.StepUpTTL/time.Second)
	return out, nil
}

func (s *Server) adminGetMode(ctx context.Context, _ *struct{}) (*modeOut, error) {
	mode, err := s.cfg.Billing.Mode(ctx)
	if err != nil {
		return nil, err
	}
	rules, err := s.cfg.Billing.Rules(ctx, false)
	if err != nil {
		return nil, err
	}
	out := &modeOut{}
	now := time.Now()
	for _, r := range rules {
		if r.Effective(now) {
			out.Body.RulesTotal++
		}
	}
	out.Body.Mode = mode
	if mode == billing.ModeFree {
		out.Body.RulesPaused = out.Body.RulesTotal
	}
	return out, nil
}

func (s *Server) adminSetMode(ctx context.Context, in *setModeIn) (*modeOut, error) {
	p, _ := adminOf(ctx)
	if err := s.cfg.Admins.ConsumeStepUp(ctx, p, in.StepUp); err != nil {
		return nil, err
	}
	if err := s.cfg.Billing.SetMode(ctx, actor(ctx), in.Body.Mode); err != nil {
		return nil, err
	}
	return s.adminGetMode(ctx, nil)
}
