package agentgw

import (
	"sync"
	"time"
)

// inboxLimit is how many functions of one session may wait; beyond it a
// goroutine reading the socket (readBlocking) waits, as it would if it
// handled them itself. A polled socket queues one read at a time.
const inboxLimit = 64

// inbox runs one session's work, in order, on a drainer goroutine taken
// only while work is waiting (drainLoop): reading the socket when it is
// readable and handling what it held (conn.go), and the session's end.
// An idle session holds no goroutine; a goroutine's stack keeps the size
// its deepest call needed until a garbage collection shrinks it, and an
// idle agent's goroutine was most of what it cost the hub
// (docs/performance.md).
type inbox struct {
	mu      sync.Mutex
	room    sync.Cond // signalled when the queue shrinks
	queue   []func()
	running bool
}

// push queues f, starting the session's handler goroutine if none runs,
// and waits while inboxLimit functions are already queued.
func (b *inbox) push(f func()) { b.add(f, true) }

// pushNow queues f without waiting for room: for the poller, which must
// not wait on one session, and for a session's end, which may be queued
// from its own inbox.
func (b *inbox) pushNow(f func()) { b.add(f, false) }

func (b *inbox) add(f func(), wait bool) {
	b.mu.Lock()
	if b.room.L == nil {
		b.room.L = &b.mu
	}
	for wait && len(b.queue) >= inboxLimit {
		b.room.Wait()
	}
	b.queue = append(b.queue, f)
	start := !b.running
	b.running = true
	b.mu.Unlock()
	if start {
		select {
		case idleDrainers <- b: // a drainer that just finished takes it
		default:
			go drainLoop(b)
		}
	}
}

// idleDrainers hands inboxes to drainer goroutines waiting for work. A
// new goroutine starts with a small stack and grows it (a copy) while it
// decodes its first message; a drainer that waits a little for the next
// inbox keeps its grown stack, and a steady stream of messages from many
// agents is handled by a few long-lived goroutines instead of one new one
// per message.
var idleDrainers = make(chan *inbox)

// drainerIdle is how long a drainer waits for another inbox before it
// ends.
const drainerIdle = time.Second

// drainLoop drains b, then the inboxes handed to it, until none comes
// for drainerIdle.
func drainLoop(b *inbox) {
	t := time.NewTimer(drainerIdle)
	defer t.Stop()
	for {
		b.drain()
		t.Reset(drainerIdle)
		select {
		case b = <-idleDrainers:
		case <-t.C:
			return
		}
	}
}

// drain runs queued functions until none is left, then ends, letting go
// of the queue's memory.
func (b *inbox) drain() {
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.queue, b.running = nil, false
			b.mu.Unlock()
			return
		}
		f := b.queue[0]
		b.queue[0] = nil
		b.queue = b.queue[1:]
		b.room.Signal()
		b.mu.Unlock()
		f()
	}
}
