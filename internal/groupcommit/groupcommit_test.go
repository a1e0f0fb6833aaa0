package groupcommit

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestItemsArrivingDuringABatchShareTheNext: while one batch runs, every
// item submitted waits and goes in the next batch (up to max), and each
// caller gets its own outcome.
func TestItemsArrivingDuringABatchShareTheNext(t *testing.T) {
	gate := make(chan struct{})
	var mu sync.Mutex
	var batches [][]int
	b := New(40, func(items []int) ([]int, error) {
		mu.Lock()
		batches = append(batches, slices.Clone(items))
		first := len(batches) == 1
		mu.Unlock()
		if first {
			<-gate
		}
		out := make([]int, len(items))
		for i, v := range items {
			out[i] = v * 10
		}
		return out, nil
	})
	firstDone := make(chan int)
	go func() { r, _ := b.Do(1); firstDone <- r }()
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(batches) == 1 })
	var wg sync.WaitGroup
	got := make([]int, 100)
	for i := range 100 {
		wg.Go(func() {
			r, err := b.Do(i + 2)
			if err != nil {
				t.Error(err)
			}
			got[i] = r
		})
	}
	waitFor(t, func() bool { return b.Waiting() == 100 })
	close(gate)
	if r := <-firstDone; r != 10 {
		t.Errorf("lone item: %d, want 10", r)
	}
	wg.Wait()
	for i, r := range got {
		if r != (i+2)*10 {
			t.Fatalf("item %d: got %d, want %d", i+2, r, (i+2)*10)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var sizes []int
	for _, bt := range batches {
		sizes = append(sizes, len(bt))
	}
	if want := []int{1, 40, 40, 20}; !slices.Equal(sizes, want) {
		t.Errorf("batch sizes %v, want %v", sizes, want)
	}
}

func TestAFailedBatchFailsEachOfItsItems(t *testing.T) {
	down := errors.New("store down")
	fail := true
	b := New(0, func(items []string) ([]string, error) {
		if fail {
			return nil, down
		}
		return items, nil
	})
	if _, err := b.Do("a"); !errors.Is(err, down) {
		t.Fatalf("got %v, want the batch's error", err)
	}
	fail = false // Do returned: no batch is running
	if r, err := b.Do("b"); err != nil || r != "b" {
		t.Fatalf("after a failure: %q, %v", r, err)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for range 5000 {
		if ok() {
			return
		}
		sleep()
	}
	t.Fatal("condition not met")
}

func sleep() { <-time.After(time.Millisecond) }

// TestALoneItemRunsOnItsCallersGoroutine: with nothing queued, Do runs
// the batch itself (no goroutine to start and wake on the charge path);
// items that arrive meanwhile still go to a drain goroutine.
func TestALoneItemRunsOnItsCallersGoroutine(t *testing.T) {
	b := New(0, func(items []int) ([]bool, error) {
		out := make([]bool, len(items))
		for i := range out {
			out[i] = onStack(").Do")
		}
		return out, nil
	})
	if inline, err := b.Do(1); err != nil || !inline {
		t.Fatalf("lone item ran on the caller's goroutine: %v (%v)", inline, err)
	}
}

// TestAPanickingBatchReleasesItsCallers: a run that panics fails every
// item of its batch, the panic reaches the goroutine that ran it, and the
// batcher takes items afterwards.
func TestAPanickingBatchReleasesItsCallers(t *testing.T) {
	boom := true
	b := New(0, func(items []int) ([]int, error) {
		if boom {
			panic("boom")
		}
		return items, nil
	})
	batch := []*pending[int, int]{{item: 1, done: make(chan struct{})}, {item: 2, done: make(chan struct{})}}
	if !panics(func() { b.runBatch(batch) }) {
		t.Fatal("the run's panic did not reach the goroutine that ran it")
	}
	for _, p := range batch {
		select {
		case <-p.done:
		default:
			t.Fatalf("item %d still waits", p.item)
		}
		if !errors.Is(p.err, errPanicked) {
			t.Fatalf("item %d: %v", p.item, p.err)
		}
	}
	if !panics(func() { _, _ = b.Do(3) }) {
		t.Fatal("a lone caller's batch panicked and Do returned")
	}
	boom = false
	if r, err := b.Do(4); err != nil || r != 4 {
		t.Fatalf("after a panic: %d, %v", r, err)
	}
}

func panics(f func()) (did bool) {
	defer func() { did = recover() != nil }()
	f()
	return false
}

func onStack(name string) bool {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	for {
		f, more := frames.Next()
		if strings.Contains(f.Function, name) {
			return true
		}
		if !more {
			return false
		}
	}
}
