package agentgw

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Admission bounds agent handshakes: at most Concurrency at once and Rate
// per second on average (a token bucket holding up to Burst). A refused
// agent is told to come back after a jittered delay, so a storm spreads out
// instead of returning in lockstep; nobody is refused for good.
type Admission struct {
	slots chan struct{}
	rate  float64
	burst float64
	now   func() time.Time

	mu     sync.Mutex
	tokens float64
	last   time.Time

	admitted, shed atomic.Int64
}

// Counts reports handshakes admitted and shed so far.
func (a *Admission) Counts() (admitted, shed int64) { return a.admitted.Load(), a.shed.Load() }

// NewAdmission returns a limiter; rate ≤ 0 means no rate limit.
func NewAdmission(concurrency int, rate float64, burst int) *Admission {
	return &Admission{slots: make(chan struct{}, concurrency), rate: rate, burst: float64(burst),
		tokens: float64(burst), now: time.Now}
}

// Acquire takes a handshake slot. On refusal it returns how long the agent
// should wait (1 to 5 s).
func (a *Admission) Acquire() (release func(), retryAfter time.Duration, ok bool) {
	if !a.take() {
		a.shed.Add(1)
		return nil, a.retry(), false
	}
	select {
	case a.slots <- struct{}{}:
		a.admitted.Add(1)
		return func() { <-a.slots }, 0, true
	default:
		a.shed.Add(1)
		return nil, a.retry(), false
	}
}

func (a *Admission) take() bool {
	if a.rate <= 0 {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if !a.last.IsZero() {
		a.tokens = min(a.burst, a.tokens+now.Sub(a.last).Seconds()*a.rate)
	}
	a.last = now
	if a.tokens < 1 {
		return false
	}
	a.tokens--
	return true
}

func (a *Admission) retry() time.Duration {
	return time.Second + time.Duration(rand.Int64N(int64(4*time.Second)))
}
