package l1local

import (
	"sync"
	"time"
)

// maxSources bounds the buckets kept; when full, idle (refilled) buckets
// are dropped, and if none is idle every source shares the overflow bucket.
const maxSources = 4096

// limiter is one token bucket per source address.
type limiter struct {
	mu      sync.Mutex
	rate    float64 // tokens per second
	burst   float64
	now     func() time.Time
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(rate float64, burst int, now func() time.Time) *limiter {
	return &limiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*bucket{}}
}

// allow takes one token from src's bucket, reporting whether there was one.
func (l *limiter) allow(src string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.buckets[src]
	if !ok {
		if len(l.buckets) >= maxSources {
			l.prune(now)
		}
		if len(l.buckets) >= maxSources {
			src = "overflow"
			b = l.buckets[src]
		}
		if b == nil {
			b = &bucket{tokens: l.burst, at: now}
			l.buckets[src] = b
		}
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// prune drops the buckets that would be full by now: forgetting them
// changes nothing.
func (l *limiter) prune(now time.Time) {
	for src, b := range l.buckets {
		if b.tokens+now.Sub(b.at).Seconds()*l.rate >= l.burst {
			delete(l.buckets, src)
		}
	}
}
