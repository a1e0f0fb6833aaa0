package loadtest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(101-i)*time.Millisecond) // unsorted on purpose
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond, 1: time.Millisecond} {
		if got := Percentile(ds, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if Percentile(nil, 50) != 0 || Percentile([]time.Duration{7}, 99) != 7 {
		t.Error("edge cases")
	}
}

func TestRunCountsCallsAndErrors(t *testing.T) {
	var n atomic.Int64
	r := Run(context.Background(), 4, 200*time.Millisecond, 3, func(context.Context) error {
		time.Sleep(time.Millisecond)
		if n.Add(1)%10 == 0 {
			return errors.New("every tenth fails")
		}
		return nil
	})
	counted := int(n.Load()) - 3 // warm-up calls are not counted
	if r.Calls == 0 || r.Calls > counted || r.Calls < counted-4 {
		t.Fatalf("calls %d, made %d after warm-up", r.Calls, counted)
	}
	if r.Errors == 0 || r.FirstError != "every tenth fails" || r.P50 < time.Millisecond || r.P99 < r.P50 {
		t.Fatalf("result %+v", r)
	}
	if r.PerSecond() <= 0 {
		t.Fatal("no throughput")
	}
}
