package agentgw

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/eventually"
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
	eventually.True(t, 5*time.Second, "inbox idle with nothing queued", func() bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		return !in.running && in.queue == nil
	})
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
	// The push has gone past the point where it could return at once when
	// its goroutine waits for room in the queue.
	eventually.True(t, 5*time.Second, "push waiting for room", func() bool {
		return waitingForRoom("TestInboxHoldsTheReaderWhenFull")
	})
	if pushed.Load() {
		t.Fatalf("push beyond %d queued messages returned at once", inboxLimit)
	}
	close(release)
	eventually.True(t, 5*time.Second, "push returning after the handler caught up", pushed.Load)
}

// waitingForRoom reports whether a goroutine that test started is in an
// inbox's push, waiting for room.
func waitingForRoom(test string) bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "(*inbox).push") && strings.Contains(g, "(*Cond).Wait") &&
			strings.Contains(g, "created by hostgate/internal/agentgw."+test) {
			return true
		}
	}
	return false
}
