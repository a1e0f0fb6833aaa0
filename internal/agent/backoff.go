package agent

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff computes reconnect delays: capped exponential backoff with full
// jitter. Attempt n (from 0) waits a uniformly random time in
// [0, min(Cap, Base·2ⁿ)).
type Backoff struct {
	Base time.Duration
	Cap  time.Duration
	// Rand returns a uniform value in [0, n); nil means math/rand/v2.
	Rand func(n int64) int64
}

// Ceiling is the upper bound of attempt's delay: min(Cap, Base·2^attempt).
func (b Backoff) Ceiling(attempt int) time.Duration {
	c := b.Base
	for i := 0; i < attempt && c < b.Cap; i++ {
		c *= 2
	}
	return min(c, b.Cap)
}

// Delay is a random delay for attempt, in [0, Ceiling(attempt)).
func (b Backoff) Delay(attempt int) time.Duration {
	return b.jitter(b.Ceiling(attempt))
}

// AtCap is the delay used when the hub refuses the host (banned, protocol
// too old): a random value in [Cap/2, Cap), so retries stay slow but a
// fleet does not return in lockstep.
func (b Backoff) AtCap() time.Duration {
	return b.Cap/2 + b.jitter(b.Cap-b.Cap/2)
}

// jitter returns a random duration in [0, d).
func (b Backoff) jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	r := b.Rand
	if r == nil {
		r = rand.Int64N
	}
	return time.Duration(r(int64(d)))
}

// sleep waits for d or until ctx is done; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
