package agentgw

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestInboxRunsInOrderAndEnds(t *testing.T) {
	var in inbox
	var got []int
	done := make(chan struct{})
	for i := range 1000 {
		in.push(func() {
			got = append(got, i) // one handler at a time: no lock needed
			if i == 999 {
				close(done)
			}
		})
	}
	<-done
	for i, v := range got {
		if v != i {
			t.Fatalf("message %d ran as %d: order lost", i, v)
		}
	}
	// The handler goroutine ends once the queue is empty.
	deadline := time.Now().Add(5 * time.Second)
	for {
		in.mu.Lock()
		idle := !in.running && in.queue == nil
		in.mu.Unlock()
		if idle {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("inbox still running with nothing queued")
		}
		runtime.Gosched()
	}
}

func TestInboxHoldsTheReaderWhenFull(t *testing.T) {
	var in inbox
	release := make(chan struct{})
	in.push(func() { <-release }) // the handler is stuck
	for range inboxLimit {
		in.push(func() {})
	}
	var pushed atomic.Bool
	go func() {
		in.push(func() {})
		pushed.Store(true)
	}()
	time.Sleep(50 * time.Millisecond)
	if pushed.Load() {
		t.Fatalf("push beyond %d queued messages returned at once", inboxLimit)
	}
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for !pushed.Load() {
		if time.Now().After(deadline) {
			t.Fatal("push did not return after the handler caught up")
		}
		time.Sleep(time.Millisecond)
	}
}
