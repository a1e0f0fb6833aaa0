package redis

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"hostgate/internal/coord"
)

// SubscriptionBuffer is how many messages a subscription holds for a
// consumer that has not read them yet. Once it is full, further messages
// for that subscription are dropped (and counted) rather than left to pile
// up in go-redis and then in Redis's output buffer for the connection,
// which would end with Redis dropping the connection. Every subscription
// has a connection of its own, so a slow consumer never delays another
// subscriber or a publisher either way.
const SubscriptionBuffer = 1024

var errClosed = errors.New("redis: closed")

// Publish sends msg to channel (under the prefix) with PUBLISH.
func (c *Coord) Publish(ctx context.Context, channel string, msg []byte) error {
	if err := c.rdb.Publish(ctx, c.key(channel), msg).Err(); err != nil {
		return fmt.Errorf("redis: publish: %w", err)
	}
	return nil
}

// Subscribe opens a pub/sub connection subscribed to channel (under the
// prefix) and returns once Redis has confirmed the subscription, so a
// message published after that arrives. go-redis redials and resubscribes
// by itself after the connection drops (and pings it every few seconds to
// notice a silent drop); what is published while it is down is lost, as
// pub/sub promises nothing more.
func (c *Coord) Subscribe(ctx context.Context, channel string) (coord.Subscription, error) {
	if c.isClosed() {
		return nil, errClosed
	}
	ps := c.rdb.Subscribe(ctx, c.key(channel))
	if err := confirm(ctx, ps, c.confirmTimeout()); err != nil {
		_ = ps.Close()
		return nil, fmt.Errorf("redis: subscribe: %w", err)
	}
	s := &subscription{
		c:    c,
		ps:   ps,
		ch:   make(chan []byte, SubscriptionBuffer),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	// Channel starts go-redis's receive loop, which must not begin before
	// confirm's Receive is over: PubSub reads are not concurrency-safe.
	go s.forward(ps.Channel())
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		_ = s.Close()
		return nil, errClosed
	}
	c.subs[s] = struct{}{}
	c.mu.Unlock()
	return s, nil
}

// confirm waits for Redis's reply to SUBSCRIBE. go-redis's Subscribe sends
// the command but does not read the reply (and drops a dial error, which the
// read then reports).
func confirm(ctx context.Context, ps *goredis.PubSub, timeout time.Duration) error {
	reply, err := ps.ReceiveTimeout(ctx, timeout)
	if err != nil {
		return err
	}
	sub, ok := reply.(*goredis.Subscription)
	if !ok || sub.Kind != "subscribe" {
		return fmt.Errorf("unexpected reply %v to SUBSCRIBE", reply)
	}
	return nil
}

// confirmTimeout follows the client's read timeout unless that is disabled
// (negative), because waiting for ever on a hung Redis is never right.
func (c *Coord) confirmTimeout() time.Duration {
	if d := c.rdb.Options().ReadTimeout; d > 0 {
		return d
	}
	return ioTimeout
}

func (c *Coord) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// closeSubs closes every subscription still open, for Close.
func (c *Coord) closeSubs() {
	c.mu.Lock()
	c.closed = true
	subs := make([]*subscription, 0, len(c.subs))
	for s := range c.subs {
		subs = append(subs, s)
	}
	c.mu.Unlock()
	for _, s := range subs {
		_ = s.Close()
	}
}

type subscription struct {
	c       *Coord
	ps      *goredis.PubSub
	ch      chan []byte
	stop    chan struct{} // closed by Close
	done    chan struct{} // closed when forward has returned
	once    sync.Once
	err     error
	dropped atomic.Int64
}

// forward copies payloads from go-redis's channel to C without ever
// blocking: a full C loses the message. go-redis keeps its channel open
// across reconnects and closes it only after PubSub.Close, so this runs
// until Close, whatever happens to the connection.
func (s *subscription) forward(in <-chan *goredis.Message) {
	defer close(s.done)
	defer close(s.ch)
	for {
		select {
		case <-s.stop:
			return
		case m, ok := <-in:
			if !ok {
				return
			}
			select {
			case s.ch <- []byte(m.Payload):
			default:
				s.dropped.Add(1)
			}
		}
	}
}

// C delivers the channel's messages until Close closes it.
func (s *subscription) C() <-chan []byte { return s.ch }

// Dropped reports how many messages were lost because the buffer was full.
func (s *subscription) Dropped() int64 { return s.dropped.Load() }

// Close closes the subscription's connection, which ends the subscription
// in Redis, and returns once C is closed; messages still buffered stay
// readable. Closing again is a no-op.
func (s *subscription) Close() error {
	s.once.Do(func() {
		if err := s.ps.Close(); err != nil {
			s.err = fmt.Errorf("redis: unsubscribe: %w", err)
		}
		close(s.stop)
		<-s.done
		s.c.mu.Lock()
		delete(s.c.subs, s)
		s.c.mu.Unlock()
	})
	return s.err
}
