package sysops

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"

	"hostgate/internal/agentproto"
)

// Rate windows. CPU percent and network rates are differences of two
// counter readings divided by the time between them.
const (
	// firstWindow is how long a sample with no usable earlier reading
	// measures (less when ctx ends sooner).
	firstWindow = 500 * time.Millisecond
	// minWindow: an earlier reading younger than this is too close for a
	// meaningful rate (CPU times tick every 10-16 ms), so the sample waits
	// until firstWindow after it instead.
	minWindow = 200 * time.Millisecond
)

// Sampler takes metrics samples. It keeps the latest counter reading, so a
// caller that samples periodically gets the rates over its period; the
// first sample measures over firstWindow. It is safe for concurrent use:
// each sample measures from the latest reading any caller took.
type Sampler struct {
	src *source

	mu   sync.Mutex
	last reading
	have bool
}

// reading is one snapshot of the rate counters.
type reading struct {
	at      time.Time
	cpu     cpu.TimesStat
	cpuErr  error
	nics    map[string]nicBytes
	nicsErr error
}

// NewSampler returns a sampler of this host with no earlier reading.
func NewSampler() *Sampler { return newSampler(systemSource()) }

func newSampler(src *source) *Sampler { return &Sampler{src: src} }

var defaultSampler = sync.OnceValue(NewSampler)

// Default is the process's shared sampler, used by SYSTEM_METRICS and by
// the agent's periodic metrics push, so that the rates of either cover
// the time since the latest sample of both.
func Default() *Sampler { return defaultSampler() }

// Sample measures the host now. A part that cannot be read is left 0 and
// the rest is still reported; the error is set only when no part at all
// could be read, or when ctx ended before the measuring window did.
func (s *Sampler) Sample(ctx context.Context) (agentproto.Metrics, error) {
	base, cur, err := s.pair(ctx)
	if err != nil {
		return agentproto.Metrics{}, err
	}
	var m agentproto.Metrics
	var errs []error
	parts := []func() error{
		func() error { return setCPU(&m, base, cur) },
		func() error { return setNet(&m, base, cur) },
		func() error { return s.setMem(ctx, &m) },
		func() error { return s.setDisk(ctx, &m) },
		func() error { return s.setTCP(ctx, &m) },
		func() error { return s.setUptime(ctx, &m) },
	}
	for _, set := range parts {
		if err := set(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == len(parts) {
		return m, errors.Join(errs...)
	}
	return m, nil
}

// pair returns the two readings to take rates from: the latest earlier
// one (or a fresh one) and one at least minWindow after it.
func (s *Sampler) pair(ctx context.Context) (base, cur reading, err error) {
	cur = s.read(ctx)
	base, have := s.latest()
	if !have {
		base = cur
	}
	if cur.at.Sub(base.at) < minWindow {
		wait := waitFor(ctx, base.at.Add(firstWindow).Sub(cur.at))
		if err := s.src.sleep(ctx, wait); err != nil {
			return reading{}, reading{}, fmt.Errorf("metrics window: %w", err)
		}
		cur = s.read(ctx)
	}
	s.keep(cur)
	return base, cur, nil
}

// waitFor is d, cut to half of the time ctx has left.
func waitFor(ctx context.Context, d time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl)/2)
	}
	return max(d, 0)
}

func (s *Sampler) read(ctx context.Context) reading {
	r := reading{at: s.src.now()}
	r.cpu, r.cpuErr = s.src.cpuTimes(ctx)
	r.nics, r.nicsErr = s.src.netCounters(ctx)
	return r
}

func (s *Sampler) latest() (reading, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.have
}

// keep stores r unless a concurrent sample stored a newer one.
func (s *Sampler) keep(r reading) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.have || r.at.After(s.last.at) {
		s.last, s.have = r, true
	}
}
