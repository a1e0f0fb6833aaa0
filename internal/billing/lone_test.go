package billing

import (
	"errors"
	"testing"
)

// TestLoneResult: what a lone charge's take means — charged when the price
// was taken; nothing in free mode or at no price; otherwise the balance
// fell short.
func TestLoneResult(t *testing.T) {
	for _, c := range []struct {
		name string
		take LoneTake
		want ChargeResult
	}{
		{"taken", LoneTake{Taken: true, Price: 30, BalanceAfter: 70},
			ChargeResult{Charged: Charged{Charged: true, Units: 30, BalanceAfter: 70}}},
		{"taken to zero", LoneTake{Taken: true, Price: 30}, ChargeResult{Charged: Charged{Charged: true, Units: 30}}},
		{"free mode", LoneTake{Mode: ModeFree, Price: 30}, ChargeResult{}},
		{"no price", LoneTake{Mode: ModeCharging}, ChargeResult{}},
		{"no mode chosen, no price", LoneTake{}, ChargeResult{}},
		{"balance short", LoneTake{Mode: ModeCharging, Price: 30}, ChargeResult{Err: ErrInsufficient}},
		{"no mode chosen, balance short", LoneTake{Price: 30}, ChargeResult{Err: ErrInsufficient}},
	} {
		got := loneResult(c.take)
		if got.Charged != c.want.Charged || !errors.Is(got.Err, c.want.Err) || (got.Err == nil) != (c.want.Err == nil) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
