package storetest

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"hostgate/internal/audit"
	"hostgate/internal/billing"
	"hostgate/internal/store"
)

// testChargesAgreeWithPlan: random rules (windows that start, end and
// overlap; prices of zero), balances, mode switches and charges, alone
// (the lone charge, billing.LoneCharger: one statement on PostgreSQL, two on SQLite) or in
// batches (the unit of work), have the outcomes billing.PlanBatch and
// billing.PriceAt decide over a model of the balances, and leave the
// model's balances.
func testChargesAgreeWithPlan(t *testing.T, s store.Store) {
	rng := rand.New(rand.NewPCG(24, 2))
	l, ctx := ledger(s), t.Context()
	base := t0.Truncate(time.Second).UTC()
	adm := audit.Actor{AdminID: "adm", Role: "owner"}
	codes := []string{"prop.a", "prop.b", "prop.c"}
	rules := map[string][]billing.Rule{}
	for _, c := range codes { // a price before and under the random windows
		r := billing.Rule{ID: newID(), Code: c, Units: billing.Units(1+rng.IntN(4)) * 100, ValidFrom: base.Add(-time.Hour), CreatedAt: base}
		must(t, "CreateRule", l.CreateRule(ctx, r, adm.Entry(audit.ActionPricingCreate, "pricing_rule", r.ID)))
		rules[c] = append(rules[c], r)
	}
	for i, start := range rng.Perm(40)[:12] { // distinct starts: no tie for the latest started
		r := billing.Rule{ID: newID(), Code: codes[i%len(codes)], Units: billing.Units(rng.IntN(3) * rng.IntN(5) * 100),
			ValidFrom: base.Add(time.Duration(start-20) * time.Minute), CreatedAt: base}
		if rng.IntN(2) == 0 {
			end := r.ValidFrom.Add(time.Duration(1+rng.IntN(30)) * time.Minute)
			r.ValidUntil = &end
		}
		must(t, "CreateRule", l.CreateRule(ctx, r, adm.Entry(audit.ActionPricingCreate, "pricing_rule", r.ID)))
		rules[r.Code] = append(rules[r.Code], r)
	}
	model := map[string]billing.Units{}
	var users []string
	for range 3 {
		b := billing.Units(rng.IntN(10) * 100) // round, like the prices: charges that take a balance to zero
		u := fund(t, s, b)
		users, model[u] = append(users, u), b
	}
	users = append(users, createUser(t, s, newUser(newID()+"@example.com", "unfunded", t0)).user.ID)
	mode := billing.ModeCharging
	type outcome struct{ lone, charged, toZero, refused bool }
	seen := map[outcome]bool{}
	for round := range 200 {
		if free := mode == billing.ModeFree; (!free && rng.IntN(12) == 0) || (free && rng.IntN(2) == 0) {
			mode = map[bool]string{true: billing.ModeCharging, false: billing.ModeFree}[free]
			must(t, "SetMode", l.SetMode(ctx, mode, adm.Entry(audit.ActionBillingModeChange, "billing", "mode")))
		}
		cs := make([]billing.Charge, 1)
		if rng.IntN(3) == 0 {
			cs = make([]billing.Charge, 2+rng.IntN(10))
		}
		for i := range cs {
			cs[i] = billing.Charge{EventID: newID(), UserID: users[rng.IntN(len(users))], RuleCode: codes[rng.IntN(len(codes))],
				HostID: "h", APIKeyID: "k", At: base.Add(time.Duration(rng.IntN(3000)-1500) * time.Second)}
		}
		at := billing.BatchTime(cs)
		prices := map[string]billing.Units{}
		for _, c := range codes {
			prices[c] = billing.PriceAt(rules[c], at)
		}
		if u := cs[0].UserID; u != users[3] && rng.IntN(4) != 0 { // top up, often to exactly the first price
			units := billing.Units(1+rng.IntN(5)) * 100
			if p := prices[cs[0].RuleCode]; p > model[u] && rng.IntN(2) == 0 {
				units = p - model[u]
			}
			after, err := l.AdjustBalance(ctx, billing.Adjustment{EventID: newID(), UserID: u, Units: units, Reason: "top up",
				At: base, Audit: adm.Entry(audit.ActionUserBalanceAdjust, "user", u)})
			must(t, "AdjustBalance", err)
			if model[u] += units; after != model[u] {
				t.Fatalf("top up to %d, want %d", after, model[u])
			}
		}
		want := billing.PlanBatch(mode, prices, model, cs)
		got, err := l.ChargeCalls(ctx, cs)
		must(t, "ChargeCalls", err)
		for i, w := range want.Results {
			if g := got[i]; g.Charged != w.Charged || !errors.Is(g.Err, w.Err) || (g.Err == nil) != (w.Err == nil) {
				t.Fatalf("round %d (mode %s, prices %v), charge %d of %d %+v: got %+v, want %+v",
					round, mode, prices, i, len(cs), cs[i], g, w)
			}
		}
		for _, w := range want.Results {
			seen[outcome{lone: len(cs) == 1, charged: w.Charged.Charged, toZero: w.Charged.Charged && w.BalanceAfter == 0,
				refused: w.Err != nil}] = true
		}
		for u, b := range want.Balances {
			model[u] = b
		}
	}
	for _, u := range users {
		checkLedger(t, s, u, model[u])
	}
	for _, o := range []outcome{{lone: true, charged: true}, {lone: true, charged: true, toZero: true}, {lone: true, refused: true},
		{lone: true}, {charged: true}, {charged: true, toZero: true}, {refused: true}, {}} {
		if !seen[o] {
			t.Errorf("no charge with the outcome %+v: the random charges miss a case", o)
		}
	}
}
