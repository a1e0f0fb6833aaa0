package coord

import (
	"context"
	"strconv"
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

// windowAt is the fixed window that holds now: windows are
// whole multiples of Window since the Unix epoch, so every instance, and
// every key, agrees on where one ends. It returns the window's number and
// how long until it ends.
func (l Limiter) windowAt(now time.Time) (n int64, left time.Duration) {
	w := l.Window
	n = now.UnixNano() / int64(w)
	return n, time.Duration((n+1)*int64(w) - now.UnixNano())
}

// Take counts one event for key in the window holding now. ok is
// false when the window's count is over Limit, and retry is then how long
// until the window ends and the key may try again; first is true for the
// first refused event of the window. The count is keyed by the window's
// number, so it starts again at zero when the window ends on every
// instance at once, whenever the key's first event of a window came. An
// error means the event could not be counted.
func (l Limiter) Take(ctx context.Context, key string, now time.Time) (ok, first bool, retry time.Duration, err error) {
	n, left := l.windowAt(now)
	c, err := l.Coord.Incr(ctx, l.Prefix+strconv.FormatInt(n, 10)+":"+key, l.Window)
	if err != nil {
		return false, false, 0, err
	}
	if c <= l.Limit {
		return true, false, 0, nil
	}
	return false, c == l.Limit+1, left, nil
}
