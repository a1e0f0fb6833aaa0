package passwords

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/battery"
)

// TestBatteryHashingConcurrencyCapped (CI size of the nightly 200
// concurrent logins): four times the cap of verifications at once never run more than the
// cap (2×GOMAXPROCS) at a time, and the heap rises by about the cap's
// worth of 19 MiB blocks, not 50 of them. The excess waits for a slot
// (bounded by its request's context, TestVerifyWaitsForASlot) rather than
// being refused with 429/503: docs/accounts.md, "Hashing".
func TestBatteryHashingConcurrencyCapped(t *testing.T) {
	h := NewHasher(Default)
	encoded := mustHash(t, h, "correct horse battery staple")
	limit := cap(h.slots)
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)

	stop := make(chan struct{})
	var maxBusy atomic.Int64
	var peakHeap atomic.Uint64
	var sampler sync.WaitGroup
	sampler.Go(func() {
		var ms runtime.MemStats
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			if n := int64(len(h.slots)); n > maxBusy.Load() {
				maxBusy.Store(n)
			}
			if i%5 == 0 {
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > peakHeap.Load() {
					peakHeap.Store(ms.HeapAlloc)
				}
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	n := 4 * limit
	var wg sync.WaitGroup
	var okCount atomic.Int64
	var slowest atomic.Int64
	start := time.Now()
	for range n {
		wg.Go(func() {
			ok, _, err := h.Verify(t.Context(), "correct horse battery staple", encoded)
			if err == nil && ok {
				okCount.Add(1)
			}
			if d := int64(time.Since(start)); d > slowest.Load() {
				slowest.Store(d)
			}
		})
	}
	wg.Wait()
	close(stop)
	sampler.Wait()

	const block = 19 * 1024 * 1024
	rise := int64(peakHeap.Load()) - int64(base.HeapAlloc)
	// GOGC lets garbage reach the live heap's size again before a cycle:
	// twice the cap's blocks plus slack, far below n blocks.
	bound := int64(2*limit+2) * block
	if okCount.Load() != int64(n) || maxBusy.Load() > int64(limit) || rise > bound {
		t.Fatalf("%d of %d verified; at most %d hashing at once (cap %d); heap rose %d MiB (bound %d MiB)",
			okCount.Load(), n, maxBusy.Load(), limit, rise>>20, bound>>20)
	}
	battery.Report(t, "T31", "%d concurrent verifications (4 × the cap; CI size of 200): ≤%d hashing at once (cap 2×GOMAXPROCS = %d); heap rise %d MiB (cap × 19 MiB = %d MiB, uncapped would be %d MiB); the excess queued, last done after %v",
		n, maxBusy.Load(), limit, rise>>20, limit*19, n*19, time.Duration(slowest.Load()).Round(time.Millisecond))
}
