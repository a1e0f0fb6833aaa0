package httpapi_test

import (
	"slices"
	"strings"
	"testing"

	"hostgate/internal/hubtest"
)

type priceItem struct {
	Code        string  `json:"code"`
	TokenAmount float64 `json:"token_amount"`
	Description string  `json:"description"`
}

func listPrices(t *testing.T, c *hubtest.Client) map[string]priceItem {
	t.Helper()
	var out struct{ Items []priceItem }
	c.Do("GET", "/v1/user/billing/prices", nil).Want(t, 200, "").JSON(t, &out)
	if !slices.IsSortedFunc(out.Items, func(a, b priceItem) int { return strings.Compare(a.Code, b.Code) }) {
		t.Errorf("prices not sorted by code: %+v", out.Items)
	}
	byCode := map[string]priceItem{}
	for _, p := range out.Items {
		if _, dup := byCode[p.Code]; dup {
			t.Errorf("code %s listed twice", p.Code)
		}
		byCode[p.Code] = p
	}
	return byCode
}

// TestUserPrices: GET /v1/user/billing/prices lists each code's price in
// force: the seeded ones, then a newer rule an admin adds, which is also
// what the next call is charged.
func TestUserPrices(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		c := h.Client(t).As(u.AccessToken)

		before := listPrices(t, c)
		for code, want := range map[string]float64{
			"control.dir.per_call": 1, "control.exec_shell.per_call": 5,
			"control.system_metrics.per_call": 0.1, "host.query.per_call": 0,
		} {
			if p, ok := before[code]; !ok || p.TokenAmount != want {
				t.Errorf("seeded %s = %+v (listed %v), want %v tokens", code, p, ok, want)
			}
		}
		if len(before) != 18 {
			t.Errorf("%d codes listed, want the 18 seeded", len(before))
		}

		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("POST", "/v1/admin/pricing-rules", map[string]any{
			"code": "control.dir.per_call", "token_amount": 2.5, "description": "dearer listing",
		}).Want(t, 200, "")
		after := listPrices(t, c)
		if p := after["control.dir.per_call"]; p.TokenAmount != 2.5 || p.Description != "dearer listing" {
			t.Errorf("control.dir.per_call after a newer rule = %+v, want 2.5 tokens, dearer listing", p)
		}
		if len(after) != len(before) {
			t.Errorf("%d codes after a newer rule, want %d", len(after), len(before))
		}

		h.Client(t).Do("GET", "/v1/user/billing/prices", nil).Want(t, 401, "unauthorized")
	})
}
