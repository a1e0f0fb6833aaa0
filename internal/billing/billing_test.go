package billing

import (
	"math"
	"testing"
	"time"
)

func TestParseTokens(t *testing.T) {
	ok := map[float64]Units{0.1: 100, 0.5: 500, 1: 1000, 36.5: 36500, -2.25: -2250, 0.001: 1, 1e9: 1e12}
	for in, want := range ok {
		got, err := ParseTokens(in)
		if err != nil || got != want {
			t.Errorf("ParseTokens(%v) = %d, %v; want %d", in, got, err, want)
		}
		if got.Tokens() != in {
			t.Errorf("%d.Tokens() = %v, want %v", got, got.Tokens(), in)
		}
	}
	for _, bad := range []float64{0.0001, 1.2345, math.NaN(), math.Inf(1), 2e12} {
		if u, err := ParseTokens(bad); err == nil {
			t.Errorf("ParseTokens(%v) = %d, want an error", bad, u)
		}
	}
}

func FuzzParseTokens(f *testing.F) {
	for _, s := range []float64{0, 0.1, 0.5, -3.125, 1e11} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		u, err := ParseTokens(x)
		if err != nil {
			return
		}
		// What is accepted round-trips within float precision.
		if math.Abs(u.Tokens()-x) > 1e-6*math.Max(1, math.Abs(x)) {
			t.Fatalf("%v parsed to %d (%v)", x, u, u.Tokens())
		}
	})
}

func TestRuleEffective(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	end := t0.Add(time.Hour)
	r := Rule{ValidFrom: t0, ValidUntil: &end}
	cases := map[time.Time]bool{t0.Add(-time.Second): false, t0: true, t0.Add(time.Minute): true, end: false}
	for at, want := range cases {
		if r.Effective(at) != want {
			t.Errorf("Effective(%v) = %v, want %v", at, !want, want)
		}
	}
	if !(Rule{ValidFrom: t0}).Effective(t0.Add(1000 * time.Hour)) {
		t.Error("an open-ended rule ended")
	}
}

func TestInForce(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ended := t0.Add(-time.Minute)
	rules := []Rule{
		{Code: "b", Units: 1, ValidFrom: t0.Add(-2 * time.Hour)},
		{Code: "b", Units: 2, ValidFrom: t0.Add(-time.Hour)},
		{Code: "b", Units: 3, ValidFrom: t0.Add(time.Hour)}, // not started
		{Code: "a", Units: 4, ValidFrom: t0.Add(-time.Hour)},
		{Code: "a", Units: 5, ValidFrom: t0.Add(-30 * time.Minute), ValidUntil: &ended}, // ended
		{Code: "c", Units: 6, ValidFrom: t0.Add(time.Hour)},                             // none in force
	}
	got := InForce(rules, t0)
	if len(got) != 2 || got[0].Code != "a" || got[0].Units != 4 || got[1].Code != "b" || got[1].Units != 2 {
		t.Errorf("InForce = %+v, want a at 4 and b at 2", got)
	}
}
