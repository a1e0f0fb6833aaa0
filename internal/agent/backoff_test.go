package agent

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/agentproto"
)

// fixedRand returns frac·n, clamped into [0, n).
func fixedRand(frac float64) func(int64) int64 {
	return func(n int64) int64 {
		v := int64(float64(n) * frac)
		return min(max(v, 0), n-1)
	}
}

func TestBackoffCeilingAndJitterBounds(t *testing.T) {
	b := Backoff{Base: time.Second, Cap: 60 * time.Second}
	wantCeil := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60, 60}
	for i, w := range wantCeil {
		if got := b.Ceiling(i); got != w*time.Second {
			t.Errorf("Ceiling(%d) = %v, want %v", i, got, w*time.Second)
		}
	}
	if got := b.Ceiling(1 << 20); got != b.Cap {
		t.Errorf("Ceiling(huge) = %v, want the cap", got)
	}
	for attempt := range 12 {
		lo := Backoff{Base: b.Base, Cap: b.Cap, Rand: fixedRand(0)}.Delay(attempt)
		hi := Backoff{Base: b.Base, Cap: b.Cap, Rand: fixedRand(1)}.Delay(attempt)
		if lo != 0 {
			t.Errorf("attempt %d: lowest delay %v, want 0 (full jitter)", attempt, lo)
		}
		if ceil := b.Ceiling(attempt); hi >= ceil || hi < ceil-time.Microsecond {
			t.Errorf("attempt %d: highest delay %v, want just under %v", attempt, hi, ceil)
		}
	}
	var asked int64
	spy := Backoff{Base: b.Base, Cap: b.Cap, Rand: func(n int64) int64 { asked = n; return n / 2 }}
	if d := spy.Delay(3); asked != int64(8*time.Second) || d != 4*time.Second {
		t.Errorf("Delay(3) asked rand for [0,%v) and got %v", time.Duration(asked), d)
	}
}

func TestBackoffAtCap(t *testing.T) {
	for _, frac := range []float64{0, 0.5, 1} {
		b := Backoff{Base: time.Second, Cap: time.Minute, Rand: fixedRand(frac)}
		if d := b.AtCap(); d < 30*time.Second || d >= time.Minute {
			t.Errorf("AtCap with rand %v = %v, want in [30s, 60s)", frac, d)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	b := Backoff{Base: time.Second, Cap: time.Minute, Rand: fixedRand(0.5)}
	cases := []struct {
		err    error
		lo, hi time.Duration
	}{
		{errors.New("dial refused"), 0, time.Second},
		{&HubError{Status: 503, RetryAfter: 5 * time.Second}, 5 * time.Second, 6 * time.Second},
		{fmt.Errorf("wrapped: %w", &HubError{Status: 503, RetryAfter: 3 * time.Second}), 3 * time.Second, 4 * time.Second},
		{&HubError{Status: 403, Code: "host_banned"}, 30 * time.Second, time.Minute},
		{fmt.Errorf("token refresh: %w", &HubError{Status: 403}), 30 * time.Second, time.Minute},
		{&gws.CloseError{Code: closeTooOld}, 30 * time.Second, time.Minute},
		{fmt.Errorf("hello: %w", &agentproto.Error{Code: agentproto.CodeUnsupportedProt}), 30 * time.Second, time.Minute},
		{&HubError{Status: 401}, 0, time.Second},
	}
	for _, tc := range cases {
		if d := retryDelay(b, tc.err, 0); d < tc.lo || d >= tc.hi {
			t.Errorf("retryDelay(%v) = %v, want in [%v, %v)", tc.err, d, tc.lo, tc.hi)
		}
	}
	// A long outage keeps at least the Retry-After, but the backoff may
	// exceed it.
	if d := retryDelay(b, &HubError{Status: 503, RetryAfter: time.Second}, 10); d < 30*time.Second {
		t.Errorf("retryDelay after many attempts = %v, want the backoff's", d)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	cases := map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"-4":                            0,
		"junk":                          0,
		"999999":                        maxRetryAfter,
		"Mon, 23 Nov 2026 10:00:07 GMT": 7 * time.Second,
	}
	for v, want := range cases {
		h := map[string][]string{}
		if v != "" {
			h[agentproto.RetryAfterHeader] = []string{v}
		}
		if got := parseRetryAfter(h, now); got != want {
			t.Errorf("Retry-After %q = %v, want %v", v, got, want)
		}
	}
}
