package billing

import (
	"context"
	"strconv"
	"sync"
)

// Decimal is u as the token number the API shows (a JSON number's text):
// at most three decimals, no trailing zeros, "0" for zero; e.g. 95,
// 99.5, 0.1, -2.25.
func (u Units) Decimal() string {
	s := strconv.FormatInt(int64(u)/UnitsPerToken, 10)
	frac := int64(u) % UnitsPerToken
	if frac == 0 {
		return s
	}
	if frac < 0 {
		frac = -frac
		if u > -UnitsPerToken {
			s = "-0"
		}
	}
	f := strconv.FormatInt(UnitsPerToken+frac, 10)[1:] // three digits
	for f[len(f)-1] == '0' {
		f = f[:len(f)-1]
	}
	return s + "." + f
}

// Spent is what the charge steps of one request took: Units in all and,
// when a step read it, the Balance after the last one (HasBalance false
// in free mode or at a price of zero, where nothing is read or written).
type Spent struct {
	Units      Units `json:"units"`
	Balance    Units `json:"balance"`
	HasBalance bool  `json:"has_balance"`
}

// Receipt collects what the charges made on behalf of one request took,
// so that the answer can say it (X-Hostgate-Charged, X-Hostgate-Balance)
// without the handler deciding anything: ChargeCall notes each charge
// step in the Receipt its context carries.
type Receipt struct {
	mu    sync.Mutex
	seen  bool
	spent Spent
}

type receiptKey struct{}

// WithReceipt returns ctx carrying a new, empty Receipt.
func WithReceipt(ctx context.Context) (context.Context, *Receipt) {
	r := &Receipt{}
	return context.WithValue(ctx, receiptKey{}, r), r
}

// Note adds one charge step's outcome to the Receipt ctx carries, if any.
// ChargeCall notes its own; a caller that learns of a charge made
// elsewhere (by another hub instance) notes it here.
func Note(ctx context.Context, s Spent) {
	r, _ := ctx.Value(receiptKey{}).(*Receipt)
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = true
	r.spent.Units += s.Units
	if s.HasBalance {
		r.spent.Balance, r.spent.HasBalance = s.Balance, true
	}
}

// Spent is what the request's charge steps took; seen is false when the
// request reached no charge step.
func (r *Receipt) Spent() (s Spent, seen bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spent, r.seen
}
