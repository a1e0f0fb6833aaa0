package hostgate

import (
	"context"
	"net/http"
	"strconv"
)

// The hub names the price of each charged call in its answer
// (docs/billing.md): X-Hostgate-Charged, the tokens the call took, and
// X-Hostgate-Balance, the balance after.
const (
	HeaderCharged = "X-Hostgate-Charged"
	HeaderBalance = "X-Hostgate-Balance"
)

// Charge is what one call cost, as the hub's answer says it.
type Charge struct {
	// Tokens is what the call took: 0 in free mode, at a price of zero,
	// or when it was refused for the balance (402).
	Tokens float64
	// Balance is the balance after the call (on a 402, the balance that
	// fell short); HasBalance is false when the hub read none (free mode,
	// a price of zero).
	Balance    float64
	HasBalance bool
	// ChargedText and BalanceText are the headers as sent (decimal token
	// numbers, e.g. "0.5"), for display without float formatting.
	ChargedText, BalanceText string
}

// chargeOf is the Charge an answer's headers name, nil when they name
// none (a call that reached no charge step: a free route, or one refused
// before the charge).
func chargeOf(h http.Header) *Charge {
	ct := h.Get(HeaderCharged)
	if ct == "" {
		return nil
	}
	tokens, err := strconv.ParseFloat(ct, 64)
	if err != nil {
		return nil
	}
	ch := &Charge{Tokens: tokens, ChargedText: ct}
	if bt := h.Get(HeaderBalance); bt != "" {
		if b, err := strconv.ParseFloat(bt, 64); err == nil {
			ch.Balance, ch.HasBalance, ch.BalanceText = b, true, bt
		}
	}
	return ch
}

// WithChargeHook calls f with the Charge of every answer that names one,
// successful or not, as it arrives (from the goroutine that made the
// call). The CLI prints it; a program may total it.
func WithChargeHook(f func(Charge)) Option { return func(c *Client) { c.onCharge = f } }

type chargeKey struct{}

// ReportCharge returns a context whose calls report their Charge to f,
// besides the client's WithChargeHook: the price of one particular call.
//
//	var ch hostgate.Charge
//	res, err := c.Shell(hostgate.ReportCharge(ctx, func(x hostgate.Charge) { ch = x }), id, "/bin/sh", "-c 'date'", 30)
func ReportCharge(ctx context.Context, f func(Charge)) context.Context {
	return context.WithValue(ctx, chargeKey{}, f)
}

func (c *Client) reportCharge(ctx context.Context, ch Charge) {
	if f, ok := ctx.Value(chargeKey{}).(func(Charge)); ok && f != nil {
		f(ch)
	}
	if c.onCharge != nil {
		c.onCharge(ch)
	}
}
