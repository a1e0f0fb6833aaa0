package operations

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
)

// spec is how the hub carries out one controls value: the pricing rule it
// is charged by and how long the hub waits for the agent.
type spec struct {
	rule    string
	timeout func(agentproto.ControlArgs) time.Duration
}

// RuleRawControl prices a controls/raw (or /gateway) call whose value
// names no operation the client API carries out by value (rawSpec).
// Migration 0003 seeds no price for it, so such a call is not charged
// until an admin adds a rule for this code; with one, it is charged before
// the agent answers and not refunded when the agent refuses the value
// (spec 8, rule 1).
const RuleRawControl = "control.raw.per_call"

// defaultWait is for quick operations.
const defaultWait = agentproto.DefaultWait

// rawSpec carries a value that has no spec to the agent as
// agentproto.OpRawControl; the agent carries it out if it can, else
// answers unsupported_control naming it.
var rawSpec = spec{RuleRawControl, func(agentproto.ControlArgs) time.Duration { return defaultWait }}

// specOf is the spec of controls value v: its row's rule and wait when the
// client API carries it out by value (agentproto.ByValue: the operations
// of its routes and CHANGE_WATCH_DIR, controls/raw and /gateway only).
// Shell sessions and settings have routes of their own and are not sent
// by their ops through Run; controls/raw carries their values, like any
// value outside the table, as agentproto.OpRawControl (rawSpec).
func specOf(v int64) (agentproto.Control, spec, bool) {
	c, ok := agentproto.ControlByValue(v)
	if !ok || c.Carry != agentproto.ByValue {
		return c, rawSpec, false
	}
	return c, spec{c.Rule, c.Timeout}, true
}

// plan is what Run sends for controls value v with args a: the op, its
// args and the spec it is charged and waited for by.
func plan(v int64, a agentproto.ControlArgs) (op string, args json.RawMessage, sp spec, err error) {
	if c, sp, ok := specOf(v); ok {
		args, err = json.Marshal(a)
		return c.Op, args, sp, err
	}
	args, err = json.Marshal(agentproto.RawControl{Controls: v, Path: a.Path, Data: a.Data})
	return agentproto.OpRawControl, args, rawSpec, err
}

// RuleOf is the pricing rule of a controls value as Run charges it: its
// row's, or RuleRawControl for a value Run carries as a raw control.
func RuleOf(controls int64) string {
	_, sp, _ := specOf(controls)
	return sp.rule
}

// RouteControls are the controls values each client API route takes:
// the rows of agentproto.Controls that name the route, in value order.
var RouteControls = routeControls(agentproto.Controls)

func routeControls(table []agentproto.Control) map[string][]int64 {
	m := map[string][]int64{}
	for _, c := range table {
		if c.Carry == agentproto.ByValue && c.Route != "" {
			m[c.Route] = append(m[c.Route], c.Value)
		}
	}
	return m
}

// controlsFor checks a body's controls value against its route. A route
// with one operation accepts an absent value (0) as that one.
func controlsFor(route string, v int64) (int64, error) {
	if route == "" {
		// controls/raw carries any positive value to the agent. 0 is
		// an absent value and a negative one is in no range of the spec.
		if v <= 0 {
			return 0, apperr.New(apperr.CodeInvalidBody, fmt.Sprintf("controls must be a positive integer, got %d", v))
		}
		if c, ok := agentproto.ControlByValue(v); ok && c.Carry == agentproto.NotImplemented {
			// As its route (files/upload) answers (spec 4.5).
			return 0, apperr.New(CodeNotImplemented, agentproto.NotImplementedError(c).Message)
		}
		return v, nil
	}
	allowed := RouteControls[route]
	if v == 0 && len(allowed) == 1 {
		return allowed[0], nil
	}
	if !slices.Contains(allowed, v) {
		return 0, apperr.New(apperr.CodeInvalidBody, fmt.Sprintf("controls %d does not match %s; it takes %v", v, route, allowed))
	}
	return v, nil
}
