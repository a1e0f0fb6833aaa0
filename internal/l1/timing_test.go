package l1

import (
	"bytes"
	"math"
	"slices"
	"testing"
	"time"

	"hostgate/internal/battery"
)

// unpadSink keeps the compiler from dropping the timed calls.
var unpadSink int

// timeBatch is how long batch calls of unpad on b take.
func timeBatch(b []byte, batch int) time.Duration {
	start := time.Now()
	s := 0
	for range batch {
		n, ok := unpad(b)
		s += n + ok
	}
	unpadSink += s
	return time.Since(start)
}

// TestUnpadTimingDoesNotDependOnPadding (battery T57, the unit half): for
// each of the 16 padding lengths, a valid padding and one that is wrong
// at that length's first byte take the same time: the medians of 10^5
// calls each differ by less than 1 %. The batches of the two inputs
// alternate, in two buffers they trade, and the median is that of each
// adjacent pair's ratio, so load on the machine and the buffers' places in
// memory fall on both alike; a round whose noise still exceeds the gate
// is measured again, at most 10 rounds, and the test fails when no round
// passes. (An early-exit padding check measures about 87 % at length 16.)
func TestUnpadTimingDoesNotDependOnPadding(t *testing.T) {
	if testing.Short() {
		t.Skip("timing measurement")
	}
	const (
		samples = 1000
		batch   = 100 // samples × batch = 10^5 runs per input
		gate    = 0.01
		rounds  = 10
	)
	type pair struct{ valid, invalid []byte }
	var pairs []pair
	for p := 1; p <= 16; p++ {
		valid := append(bytes.Repeat([]byte{'x'}, 32-p), bytes.Repeat([]byte{byte(p)}, p)...)
		invalid := bytes.Clone(valid)
		if p == 1 {
			invalid[31] = 0 // no padding length is 0
		} else {
			invalid[32-p]-- // the padding's first byte is wrong
		}
		if _, ok := unpad(valid); ok != 1 {
			t.Fatalf("p=%d: valid padding refused", p)
		}
		if _, ok := unpad(invalid); ok != 0 {
			t.Fatalf("p=%d: invalid padding accepted", p)
		}
		pairs = append(pairs, pair{valid, invalid})
	}
	var worst float64
	var worstP, round int
	for round = 1; round <= rounds; round++ {
		worst, worstP = 0, 0
		for i, pr := range pairs {
			v := make([]time.Duration, 0, samples)
			inv := make([]time.Duration, 0, samples)
			a, b := make([]byte, len(pr.valid)), make([]byte, len(pr.valid))
			for s := range samples {
				// The two inputs trade buffers every sample and order
				// every other one, so neither where a buffer lies nor
				// which runs first falls on one input only.
				vb, ib := a, b
				if s%2 == 1 {
					vb, ib = b, a
				}
				copy(vb, pr.valid)
				copy(ib, pr.invalid)
				if (s/2)%2 == 0 {
					v = append(v, timeBatch(vb, batch))
					inv = append(inv, timeBatch(ib, batch))
				} else {
					inv = append(inv, timeBatch(ib, batch))
					v = append(v, timeBatch(vb, batch))
				}
			}
			// Each sample's two batches ran back to back: their ratio
			// cancels what changed in between (load, clock speed).
			ratios := make([]float64, samples)
			for s := range samples {
				ratios[s] = float64(inv[s]) / float64(v[s])
			}
			slices.Sort(ratios)
			d := math.Abs(ratios[samples/2] - 1)
			if d > worst {
				worst, worstP = d, i+1
			}
		}
		if worst < gate {
			break
		}
		t.Logf("round %d: worst Δmedian %.2f %% (padding length %d): measuring again", round, 100*worst, worstP)
	}
	if worst >= gate {
		t.Fatalf("unpad's median time differs by %.2f %% between valid and invalid padding of length %d (gate %.0f %%) in each of %d rounds",
			100*worst, worstP, 100*gate, rounds)
	}
	battery.Report(t, "T57", "unpad, 16 padding lengths × valid/invalid × 10^5 runs: worst Δmedian %.2f %% (length %d), gate 1 %%, round %d",
		100*worst, worstP, round)
}
