package streams

import "sync"

// ctrlQueue sends the frames the receive path decides on (refusals and
// protocol resets) from a goroutine of its own, so Deliver never waits for
// the transport: a read loop that blocked on writing could deadlock two
// peers whose send buffers are both full. The queue is bounded; past the
// bound the peer is flooding us with bad frames and replies are dropped.
type ctrlQueue struct {
	t   Transport
	max int

	mu      sync.Mutex
	q       []Frame
	running bool
	stopped bool
}

func newCtrlQueue(t Transport, max int) *ctrlQueue { return &ctrlQueue{t: t, max: max} }

func (c *ctrlQueue) push(f Frame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || len(c.q) >= c.max {
		return
	}
	c.q = append(c.q, f)
	if !c.running {
		c.running = true
		go c.drain()
	}
}

// drain sends until the queue is empty, then exits; push starts it again.
func (c *ctrlQueue) drain() {
	for {
		c.mu.Lock()
		q := c.q
		c.q = nil
		if len(q) == 0 || c.stopped {
			c.running = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		for _, f := range q {
			if b, err := f.AppendBinary(nil); err == nil {
				_ = c.t.WriteBinary(b)
			}
		}
	}
}

func (c *ctrlQueue) stop() {
	c.mu.Lock()
	c.stopped = true
	c.q = nil
	c.mu.Unlock()
}
