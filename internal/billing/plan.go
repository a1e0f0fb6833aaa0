package billing

import (
	"slices"
	"time"
)

// PriceAt is the price of a call at t under rules, the rules of its code:
// the units of the rule in force at t (InForce: the latest started of
// those effective), zero when none is, never below zero.
func PriceAt(rules []Rule, t time.Time) Units {
	in := InForce(rules, t)
	if len(in) == 0 {
		return 0
	}
	return max(in[0].Units, 0)
}

// BatchTime is the moment a batch is priced at: its latest charge's.
func BatchTime(cs []Charge) time.Time {
	var at time.Time
	for i, c := range cs {
		if i == 0 || c.At.After(at) {
			at = c.At
		}
	}
	return at
}

// LockOrder lists, sorted, the users whose balance a batch may change:
// those with a charge of a price above zero. Every batch locks balances
// in this one order, so concurrent batches never deadlock.
func LockOrder(prices map[string]Units, cs []Charge) []string {
	var users []string
	for _, c := range cs {
		if prices[c.RuleCode] > 0 && !slices.Contains(users, c.UserID) {
			users = append(users, c.UserID)
		}
	}
	slices.Sort(users)
	return users
}

// Plan is what a batch of charges does.
type Plan struct {
	// Results are the charges' outcomes, in the batch's order.
	Results []ChargeResult
	// Balances are the new balances of the users whose balance changes.
	Balances map[string]Units
	// Events record the changes, one per charge taken, in the batch's order.
	Events []Event
}

// PlanBatch decides what a batch of charges costs, given the billing mode,
// the price of each rule code and the balances of the users (LockOrder's;
// a user missing has none). In free mode, and at price zero, a charge
// takes nothing and records nothing. Otherwise each charge, in the
// batch's order, takes its price from its user's balance where the
// balance covers it, first come first served, and records its event; a
// charge the balance no longer covers gets ErrInsufficient and changes
// nothing. A balance never goes below zero, and each user's balance
// changes by the sum of the user's events.
func PlanBatch(mode string, prices, balances map[string]Units, cs []Charge) Plan {
	p := Plan{Results: make([]ChargeResult, len(cs)), Balances: map[string]Units{}}
	if mode == ModeFree {
		return p
	}
	for i, c := range cs {
		price := prices[c.RuleCode]
		if price <= 0 {
			continue
		}
		units, ok := p.Balances[c.UserID]
		if !ok {
			units = balances[c.UserID]
		}
		if units < price {
			p.Results[i].Err = ErrInsufficient
			continue
		}
		units -= price
		p.Balances[c.UserID] = units
		p.Results[i].Charged = Charged{Charged: true, Units: price, BalanceAfter: units}
		p.Events = append(p.Events, Event{ID: c.EventID, UserID: c.UserID, Kind: KindCharge, Units: -price,
			BalanceAfter: units, RuleCode: c.RuleCode, HostID: c.HostID, APIKeyID: c.APIKeyID, CreatedAt: c.At})
	}
	return p
}

// apply is r changed by ch; ErrRuleWindow when it would end before it
// starts.
func (r Rule) apply(ch RuleChange) (Rule, error) {
	if ch.Units != nil {
		r.Units = *ch.Units
	}
	if ch.Description != nil {
		r.Description = *ch.Description
	}
	if ch.ValidUntil != nil {
		r.ValidUntil = ch.ValidUntil
		if ch.ValidUntil.IsZero() {
			r.ValidUntil = nil
		}
	}
	if r.ValidUntil != nil && !r.ValidUntil.After(r.ValidFrom) {
		return Rule{}, ErrRuleWindow
	}
	return r, nil
}

// initModeDecides states when a new installation's configuration sets the
// billing mode: at most once, and not once users exist (an existing
// installation keeps its own).
func initModeDecides(chosen, usersExist bool) bool {
	return !chosen && !usersExist
}
