// Package loadtest drives bounded load and summarises it: callers run a
// function sequentially or from many goroutines for a fixed time and get
// the count, throughput and latency percentiles. cmd/hostgate-bench builds
// its scenarios on it (docs/performance.md).
package loadtest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Result summarises one run.
type Result struct {
	Calls         int
	Errors        int
	Duration      time.Duration
	P50, P95, P99 time.Duration
	// FirstError is the first failure's text, if any.
	FirstError string
}

// PerSecond is the throughput of successful calls.
func (r Result) PerSecond() float64 {
	if r.Duration <= 0 {
		return 0
	}
	return float64(r.Calls-r.Errors) / r.Duration.Seconds()
}

func (r Result) String() string {
	return fmt.Sprintf("%d calls (%d errors) in %v: %.0f/s, p50 %v, p99 %v", r.Calls, r.Errors,
		r.Duration.Round(time.Millisecond), r.PerSecond(), r.P50, r.P99)
}

// Run calls call from concurrency goroutines until d has passed (or ctx
// ends), after warm-up calls that are not counted.
func Run(ctx context.Context, concurrency int, d time.Duration, warmup int, call func(context.Context) error) Result {
	for range warmup {
		_ = call(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      int
		first     string
		wg        sync.WaitGroup
	)
	start := time.Now()
	for range max(concurrency, 1) {
		wg.Go(func() {
			var mine []time.Duration
			var bad int
			var firstErr error
			for ctx.Err() == nil {
				t := time.Now()
				err := call(ctx)
				if ctx.Err() != nil && err != nil {
					break // cut off by the end of the run, not a failure
				}
				mine = append(mine, time.Since(t))
				if err != nil {
					bad++
					if firstErr == nil {
						firstErr = err
					}
				}
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			errs += bad
			if first == "" && firstErr != nil {
				first = firstErr.Error()
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	r := Result{Calls: len(latencies), Errors: errs, Duration: time.Since(start), FirstError: first}
	r.P50, r.P95, r.P99 = Percentile(latencies, 50), Percentile(latencies, 95), Percentile(latencies, 99)
	return r
}

// Percentile returns the p-th percentile (nearest rank) of ds, 0 for none.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(rank, 0), len(s)-1)]
}
