package billing

import (
	"context"
	"testing"
)

func TestUnitsDecimal(t *testing.T) {
	for _, c := range []struct {
		u    Units
		want string
	}{
		{0, "0"}, {5000, "5"}, {500, "0.5"}, {100, "0.1"}, {1, "0.001"}, {95000, "95"}, {99500, "99.5"},
		{12340, "12.34"}, {-500, "-0.5"}, {-2250, "-2.25"}, {-3000, "-3"}, {1_000_000_000_001, "1000000000.001"},
	} {
		if got := c.u.Decimal(); got != c.want {
			t.Errorf("Units(%d).Decimal() = %q, want %q", c.u, got, c.want)
		}
	}
}

// TestReceipt: charge steps add up; the last balance read is kept; a step
// without a balance (free) keeps the one before; without a Receipt in
// the context a note goes nowhere.
func TestReceipt(t *testing.T) {
	Note(context.Background(), Spent{Units: 1}) // no receipt: nothing happens
	ctx, r := WithReceipt(context.Background())
	if _, seen := r.Spent(); seen {
		t.Fatal("a new receipt has seen a charge")
	}
	Note(ctx, Spent{Units: 500, Balance: 9500, HasBalance: true})
	Note(ctx, Spent{Units: 100, Balance: 9400, HasBalance: true})
	Note(ctx, Spent{})
	s, seen := r.Spent()
	if !seen || s != (Spent{Units: 600, Balance: 9400, HasBalance: true}) {
		t.Errorf("spent %+v (seen %v), want 0.6 taken, balance 9.4", s, seen)
	}
}
