package webhooks

import (
	"fmt"
	"time"
)

// Schedule is when a failing delivery is tried again. Attempt 1 goes at
// once; after failed attempt n (1-based) the next waits Delays[n-1] (the
// last delay repeats if the list is short); after MaxAttempts failures the
// delivery is dead and stored as dead_letter, with no automatic retry.
type Schedule struct {
	Delays      []time.Duration
	MaxAttempts int
}

// ScheduleFor returns the spec's schedule of format f; a fresh copy, which
// callers may change.
//
// Format A (spec 6.2) lists five delays but also dead-letters when attempts
// reach 5 (spec 3), so only the first four are ever waited: 2 h is kept to
// match the spec's text and is unreachable. Format B (spec 6.3) lists four.
func ScheduleFor(f Format) (Schedule, error) {
	switch f {
	case FormatA:
		return Schedule{Delays: []time.Duration{30 * time.Second, time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour}, MaxAttempts: 5}, nil
	case FormatB:
		return Schedule{Delays: []time.Duration{30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour}, MaxAttempts: 5}, nil
	}
	return Schedule{}, fmt.Errorf("webhooks: unknown format %q", f)
}

// Next says what follows attemptsSoFar failed attempts: wait delay and try
// again, or stop (dead). With no attempt yet the delay is zero.
func (s Schedule) Next(attemptsSoFar int) (delay time.Duration, dead bool) {
	switch {
	case attemptsSoFar >= s.MaxAttempts:
		return 0, true
	case attemptsSoFar <= 0 || len(s.Delays) == 0:
		return 0, false
	case attemptsSoFar > len(s.Delays):
		return s.Delays[len(s.Delays)-1], false
	}
	return s.Delays[attemptsSoFar-1], false
}

// Scaled returns s with every delay multiplied by factor, for tests that
// must see retries and dead letters quickly (the hub's documented
// test-only setting). A factor below zero counts as zero.
func (s Schedule) Scaled(factor float64) Schedule {
	out := Schedule{Delays: make([]time.Duration, len(s.Delays)), MaxAttempts: s.MaxAttempts}
	for i, d := range s.Delays {
		out.Delays[i] = time.Duration(float64(d) * max(factor, 0))
	}
	return out
}

// NextDelay is Next on format f's spec schedule. An unknown format is dead
// at once, so that a bad row never retries forever.
func NextDelay(f Format, attemptsSoFar int) (delay time.Duration, dead bool) {
	s, err := ScheduleFor(f)
	if err != nil {
		return 0, true
	}
	return s.Next(attemptsSoFar)
}
