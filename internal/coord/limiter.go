package coord

import (
	"context"
	"time"
)

// Counter is what a Limiter uses of coordination (Coord.Incr).
type Counter interface {
	Incr(ctx context.Context, key string, window time.Duration) (int64, error)
}

// Limiter allows Limit events per key in each fixed Window. The counts
// live in coordination (Incr), so every hub instance shares them. Keys
// are prefixed with Prefix; a caller passes something like a source
// address, never a secret.
type Limiter struct {
	Coord  Counter
	Prefix string
	Limit  int64
	Window time.Duration
}

// Allow counts one event for key. ok is false when the window's count is
// over Limit; first is true for the first refused event of the window
// (log that one, so a flood does not flood the log). An error means the
// event could not be counted.
func (l Limiter) Allow(ctx context.Context, key string) (ok, first bool, err error) {
	n, err := l.Coord.Incr(ctx, l.Prefix+key, l.Window)
	if err != nil {
		return false, false, err
	}
	return n <= l.Limit, n == l.Limit+1, nil
}
