package billing

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

var tp = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestPriceAt(t *testing.T) {
	end := tp.Add(time.Hour)
	rules := []Rule{
		{Code: "c", Units: 100, ValidFrom: tp.Add(-2 * time.Hour)},
		{Code: "c", Units: 300, ValidFrom: tp.Add(-time.Hour), ValidUntil: &end},
		{Code: "c", Units: 500, ValidFrom: tp.Add(2 * time.Hour)},
	}
	for _, tt := range []struct {
		at   time.Time
		want Units
	}{
		{tp.Add(-3 * time.Hour), 0},      // before any rule
		{tp.Add(-90 * time.Minute), 100}, // the first alone
		{tp, 300},                        // the latest started wins
		{end, 100},                       // an ended rule stops at its end
		{tp.Add(2 * time.Hour), 500},     // a later start takes over
		{tp.Add(-time.Hour - time.Nanosecond), 100},
	} {
		if got := PriceAt(rules, tt.at); got != tt.want {
			t.Errorf("PriceAt(%v) = %d, want %d", tt.at.Sub(tp), got, tt.want)
		}
	}
	if got := PriceAt(nil, tp); got != 0 {
		t.Errorf("PriceAt(no rules) = %d", got)
	}
}

func TestPlanBatch(t *testing.T) {
	mk := func(user, code string) Charge {
		return Charge{EventID: user + code, UserID: user, RuleCode: code, At: tp}
	}
	prices := map[string]Units{"dir": 1000, "meta": 100, "free": 0}
	type want struct {
		charged bool
		after   Units
		err     error
	}
	for _, tt := range []struct {
		name     string
		mode     string
		balances map[string]Units
		cs       []Charge
		want     []want
		after    map[string]Units
	}{
		{"in order, first come", ModeCharging, map[string]Units{"ann": 2500, "bob": 10_000},
			[]Charge{mk("ann", "dir"), mk("bob", "dir"), mk("ann", "dir"), mk("broke", "dir"), mk("ann", "dir"),
				mk("ann", "meta"), mk("ann", "free"), mk("bob", "meta")},
			[]want{{true, 1500, nil}, {true, 9000, nil}, {true, 500, nil}, {false, 0, ErrInsufficient},
				{false, 0, ErrInsufficient}, {true, 400, nil}, {false, 0, nil}, {true, 8900, nil}},
			map[string]Units{"ann": 400, "bob": 8900}},
		{"a refused charge leaves room for a cheaper one", ModeCharging, map[string]Units{"ann": 500},
			[]Charge{mk("ann", "dir"), mk("ann", "meta")},
			[]want{{false, 0, ErrInsufficient}, {true, 400, nil}}, map[string]Units{"ann": 400}},
		{"exactly the balance", ModeCharging, map[string]Units{"ann": 1000},
			[]Charge{mk("ann", "dir")}, []want{{true, 0, nil}}, map[string]Units{"ann": 0}},
		{"free mode charges nothing", ModeFree, map[string]Units{"ann": 0},
			[]Charge{mk("ann", "dir"), mk("bob", "meta")}, []want{{}, {}}, map[string]Units{}},
		{"unknown code is free", ModeCharging, map[string]Units{},
			[]Charge{mk("ann", "nope")}, []want{{}}, map[string]Units{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := PlanBatch(tt.mode, prices, tt.balances, tt.cs)
			if len(p.Results) != len(tt.want) {
				t.Fatalf("%d results, want %d", len(p.Results), len(tt.want))
			}
			for i, w := range tt.want {
				r := p.Results[i]
				if r.Charged.Charged != w.charged || r.BalanceAfter != w.after || !errors.Is(r.Err, w.err) {
					t.Errorf("charge %d: %+v, want %+v", i, r, w)
				}
			}
			if fmt.Sprint(p.Balances) != fmt.Sprint(tt.after) {
				t.Errorf("balances %v, want %v", p.Balances, tt.after)
			}
			if err := checkPlan(tt.mode, prices, tt.balances, tt.cs, p); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestPlanBatchProperties checks PlanBatch's invariants on random
// batches, prices and balances.
func TestPlanBatchProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	codes := []string{"a", "b", "c", "d"}
	users := []string{"u1", "u2", "u3", "u4", "u5"}
	for n := range 3000 {
		prices := map[string]Units{}
		for _, c := range codes {
			prices[c] = Units(rng.IntN(4) * rng.IntN(1500)) // zero often
		}
		balances := map[string]Units{}
		for _, u := range users[:4] { // u5 has no balance
			balances[u] = Units(rng.IntN(5000))
		}
		mode := ModeCharging
		if rng.IntN(5) == 0 {
			mode = ModeFree
		}
		cs := make([]Charge, rng.IntN(40))
		for i := range cs {
			cs[i] = Charge{EventID: fmt.Sprint("e", i), UserID: users[rng.IntN(len(users))],
				RuleCode: codes[rng.IntN(len(codes))], At: tp.Add(time.Duration(rng.IntN(100)) * time.Second)}
		}
		p := PlanBatch(mode, prices, balances, cs)
		if err := checkPlan(mode, prices, balances, cs, p); err != nil {
			t.Fatalf("batch %d (mode %s, prices %v, balances %v, charges %+v): %v", n, mode, prices, balances, cs, err)
		}
	}
}

// checkPlan reports where p breaks PlanBatch's invariants for its input.
func checkPlan(mode string, prices, balances map[string]Units, cs []Charge, p Plan) error {
	if len(p.Results) != len(cs) {
		return fmt.Errorf("%d results for %d charges", len(p.Results), len(cs))
	}
	if mode == ModeFree {
		for i, r := range p.Results {
			if r != (ChargeResult{}) {
				return fmt.Errorf("free mode: charge %d got %+v", i, r)
			}
		}
		if len(p.Events) != 0 || len(p.Balances) != 0 {
			return fmt.Errorf("free mode wrote %v and %v", p.Events, p.Balances)
		}
		return nil
	}
	// Walk the batch in order: each charge is taken exactly when the
	// balance left by those before it covers its price.
	running := map[string]Units{}
	for u, b := range balances {
		running[u] = b
	}
	sums := map[string]Units{}
	ev := 0
	for i, c := range cs {
		r, price := p.Results[i], prices[c.RuleCode]
		switch {
		case price <= 0:
			if r != (ChargeResult{}) {
				return fmt.Errorf("charge %d at price zero got %+v", i, r)
			}
		case running[c.UserID] < price:
			if !errors.Is(r.Err, ErrInsufficient) || r.Charged.Charged {
				return fmt.Errorf("charge %d of %d on %d: %+v, want refused", i, price, running[c.UserID], r)
			}
		default:
			running[c.UserID] -= price
			if r.Err != nil || !r.Charged.Charged || r.Units != price || r.BalanceAfter != running[c.UserID] {
				return fmt.Errorf("charge %d: %+v, want %d taken leaving %d", i, r, price, running[c.UserID])
			}
			if ev >= len(p.Events) {
				return fmt.Errorf("charge %d taken without an event", i)
			}
			e := p.Events[ev]
			ev++
			if e.ID != c.EventID || e.UserID != c.UserID || e.Kind != KindCharge || e.Units != -price ||
				e.BalanceAfter != r.BalanceAfter || e.RuleCode != c.RuleCode || !e.CreatedAt.Equal(c.At) {
				return fmt.Errorf("charge %d: event %+v", i, e)
			}
			sums[c.UserID] += e.Units
		}
	}
	if ev != len(p.Events) {
		return fmt.Errorf("%d events for %d charges taken", len(p.Events), ev)
	}
	for u, b := range p.Balances {
		if b < 0 {
			return fmt.Errorf("balance of %s below zero: %d", u, b)
		}
		if b-balances[u] != sums[u] {
			return fmt.Errorf("balance of %s moved by %d, its events by %d", u, b-balances[u], sums[u])
		}
	}
	for u, s := range sums {
		if _, ok := p.Balances[u]; !ok && s != 0 {
			return fmt.Errorf("%s has events of %d but no new balance", u, s)
		}
	}
	return nil
}

func TestBatchTimeAndLockOrder(t *testing.T) {
	cs := []Charge{
		{UserID: "b", RuleCode: "x", At: tp.Add(time.Second)},
		{UserID: "a", RuleCode: "zero", At: tp.Add(3 * time.Second)},
		{UserID: "c", RuleCode: "x", At: tp},
		{UserID: "b", RuleCode: "x", At: tp},
	}
	if got := BatchTime(cs); !got.Equal(tp.Add(3 * time.Second)) {
		t.Errorf("BatchTime = %v", got)
	}
	if got := fmt.Sprint(LockOrder(map[string]Units{"x": 5}, cs)); got != "[b c]" {
		t.Errorf("LockOrder = %s, want [b c] (sorted, none for a price of zero)", got)
	}
}

func TestRuleApply(t *testing.T) {
	r := Rule{ID: "r", Units: 100, Description: "d", ValidFrom: tp}
	units, desc, end, before, zero := Units(7), "new", tp.Add(time.Hour), tp.Add(-time.Hour), time.Time{}
	got, err := r.apply(RuleChange{Units: &units, Description: &desc, ValidUntil: &end})
	if err != nil || got.Units != 7 || got.Description != "new" || got.ValidUntil == nil || !got.ValidUntil.Equal(end) {
		t.Fatalf("apply = %+v, %v", got, err)
	}
	if got, err = got.apply(RuleChange{ValidUntil: &zero}); err != nil || got.ValidUntil != nil {
		t.Fatalf("a zero end reopens: %+v, %v", got, err)
	}
	for _, bad := range []time.Time{before, tp} {
		if _, err := r.apply(RuleChange{ValidUntil: &bad}); !errors.Is(err, ErrRuleWindow) {
			t.Errorf("end %v: %v, want ErrRuleWindow", bad.Sub(tp), err)
		}
	}
}

func TestInitModeDecides(t *testing.T) {
	for _, tt := range []struct{ chosen, users, want bool }{
		{false, false, true}, {true, false, false}, {false, true, false}, {true, true, false},
	} {
		if got := initModeDecides(tt.chosen, tt.users); got != tt.want {
			t.Errorf("initModeDecides(chosen %v, users %v) = %v", tt.chosen, tt.users, got)
		}
	}
}
