package groupcommit

import (
	"errors"
	"slices"
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
