package inproc

import (
	"context"
	"sync/atomic"

	"hostgate/internal/coord"
)

// SubscriptionBuffer is how many messages a subscription holds for a
// consumer that has not read them yet. Once it is full, further messages
// for that subscription are dropped (and counted), so one slow consumer
// never holds up Publish or other subscribers.
const SubscriptionBuffer = 1024

// Publish hands a copy of msg to every current subscriber of channel, in
// the order Publish calls take the lock. A subscriber whose buffer is full
// misses msg; Publish never blocks on a consumer.
func (c *Coord) Publish(_ context.Context, channel string, msg []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for s := range c.subs[channel] {
		// Each subscriber gets its own copy, as with Redis, so neither the
		// publisher's later writes nor another consumer's can reach it.
		select {
		case s.ch <- append([]byte{}, msg...):
		default:
			s.dropped.Add(1)
		}
	}
	return nil
}

// Subscribe registers a subscription on channel; it sees every message
// published after it returns, up to SubscriptionBuffer unread ones.
func (c *Coord) Subscribe(_ context.Context, channel string) (coord.Subscription, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, fmtErr("subscribe", errClosed)
	}
	s := &subscription{c: c, channel: channel, ch: make(chan []byte, SubscriptionBuffer)}
	set := c.subs[channel]
	if set == nil {
		set = map[*subscription]struct{}{}
		c.subs[channel] = set
	}
	set[s] = struct{}{}
	return s, nil
}

type subscription struct {
	c       *Coord
	channel string
	ch      chan []byte
	dropped atomic.Int64
}

// C delivers the channel's messages until Close; it is closed by Close (of
// the subscription or of the Coord).
func (s *subscription) C() <-chan []byte { return s.ch }

// Dropped reports how many messages were lost because the buffer was full.
func (s *subscription) Dropped() int64 { return s.dropped.Load() }

// Close unsubscribes and closes C; messages still buffered stay readable.
// Closing again is a no-op.
func (s *subscription) Close() error {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	set := s.c.subs[s.channel]
	if _, ok := set[s]; !ok {
		return nil // closed already, or by Coord.Close
	}
	delete(set, s)
	if len(set) == 0 {
		delete(s.c.subs, s.channel)
	}
	close(s.ch)
	return nil
}
