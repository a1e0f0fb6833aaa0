package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"hostgate/internal/hubtest"
)

func setMode(t *testing.T, h *hubtest.Hub, tok, stepUp, mode string) *hubtest.Response {
	b, _ := json.Marshal(map[string]string{"mode": mode})
	req, _ := http.NewRequest("POST", h.URL+"/v1/admin/billing/mode", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	if stepUp != "" {
		req.Header.Set("X-Step-Up-Token", stepUp)
	}
	return h.Client(t).Send(req)
}

func stepUpToken(t *testing.T, h *hubtest.Hub, tok string) string {
	var su struct {
		Token string `json:"step_up_token"`
	}
	h.Client(t).As(tok).Do("POST", "/v1/admin/auth/step-up", map[string]string{"password": hubtest.Password}).
		Want(t, 200, "").JSON(t, &su)
	return su.Token
}

func TestBillingModeNeedsStepUp(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		fin, _ := h.Admin(t, "finance")
		other, _ := h.Admin(t, "owner")
		viewer, _ := h.Admin(t, "viewer")
		modeChanges := func() int { return auditRows(t, h, viewer, "?action=billing.mode_change").Total }

		var m struct {
			Mode        string
			RulesTotal  int `json:"rules_total"`
			RulesPaused int `json:"rules_paused"`
		}
		h.Client(t).As(viewer).Do("GET", "/v1/admin/billing/mode", nil).Want(t, 200, "").JSON(t, &m)
		if m.Mode != "charging" || m.RulesTotal < 10 || m.RulesPaused != 0 {
			t.Fatalf("fresh mode %+v", m)
		}
		// Refused: no token, a made-up one, another admin's, a wrong password.
		setMode(t, h, fin, "", "free").Want(t, 403, "step_up_required")
		setMode(t, h, fin, "not-a-token", "free").Want(t, 403, "step_up_required")
		setMode(t, h, fin, stepUpToken(t, h, other), "free").Want(t, 403, "step_up_required")
		h.Client(t).As(fin).Do("POST", "/v1/admin/auth/step-up", map[string]string{"password": "wrong password"}).Want(t, 401, "invalid_credentials")
		if n := modeChanges(); n != 0 {
			t.Fatalf("%d audit rows after refused changes", n)
		}
		// With a token: done, audited, and the token is spent.
		tok := stepUpToken(t, h, fin)
		setMode(t, h, fin, tok, "free").Want(t, 200, "").JSON(t, &m)
		if m.Mode != "free" || m.RulesPaused != m.RulesTotal {
			t.Fatalf("after the switch: %+v", m)
		}
		if n := modeChanges(); n != 1 {
			t.Fatalf("%d audit rows, want 1", n)
		}
		setMode(t, h, fin, tok, "charging").Want(t, 403, "step_up_required")
		setMode(t, h, fin, stepUpToken(t, h, fin), "sometimes").Want(t, 400, "invalid_body")
		if n := modeChanges(); n != 1 {
			t.Fatalf("%d audit rows after a reused token and a bad mode, want 1", n)
		}
		// Another admin's failed attempt leaves the token to its owner,
		// who can use it once.
		otherTok := stepUpToken(t, h, other)
		setMode(t, h, fin, otherTok, "charging").Want(t, 403, "step_up_required")
		setMode(t, h, other, otherTok, "charging").Want(t, 200, "")
		setMode(t, h, other, otherTok, "free").Want(t, 403, "step_up_required")
		if n := modeChanges(); n != 2 {
			t.Fatalf("%d audit rows, want 2", n)
		}
	})
}
