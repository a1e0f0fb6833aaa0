// Package recent keeps facts read from the store for a moment, so that
// the hot path of a client API call (the API key, the host) does not read
// the database on every call.
//
// A fact lives at most TTL. When an instance changes a fact (a key
// deleted, a user suspended, a host banned or deleted) it calls Forget
// after committing: the entry is dropped locally at once, so the next call
// on that instance reads the store, and every other instance drops it when
// the message published over coordination arrives (well under a
// millisecond on loopback Redis). Publishing is at most once; the TTL
// bounds how long a fact can outlive a lost message.
package recent

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"hostgate/internal/coord"
)

// TTL is how long a fact may be served without reading the store.
const TTL = time.Second

// Cache holds facts of one kind by key. Entries live in two generations:
// a lookup checks both, and every TTL the older is discarded, so memory
// stays bounded by what was read in the last two TTLs without a sweeper.
type Cache[V any] struct {
	name string
	bus  *Bus
	ttl  time.Duration
	now  func() time.Time

	mu      sync.Mutex
	cur     map[string]entry[V]
	prev    map[string]entry[V]
	rotated time.Time
	// forgets counts Forget calls, so a read that began before one is
	// never stored after it (it may hold the fact the Forget was about).
	forgets uint64
}

type entry[V any] struct {
	v       V
	expires time.Time
}

// New returns a cache named name, registered on bus (nil for a cache whose
// changes only this process makes).
func New[V any](name string, bus *Bus) *Cache[V] {
	c := &Cache[V]{name: name, bus: bus, ttl: TTL, now: time.Now, cur: map[string]entry[V]{}, prev: map[string]entry[V]{}}
	if bus != nil {
		bus.register(name, c)
	}
	return c
}

// Get returns key's fact, from the cache if it was read within the TTL,
// otherwise from read, whose result is kept unless it failed or a Forget
// happened meanwhile.
func (c *Cache[V]) Get(ctx context.Context, key string, read func(context.Context) (V, error)) (V, error) {
	now := c.now()
	c.mu.Lock()
	if e, ok := c.cur[key]; ok && now.Before(e.expires) {
		c.mu.Unlock()
		return e.v, nil
	}
	if e, ok := c.prev[key]; ok && now.Before(e.expires) {
		c.mu.Unlock()
		return e.v, nil
	}
	gen := c.forgets
	c.mu.Unlock()

	v, err := read(ctx)
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forgets == gen {
		if now.Sub(c.rotated) >= c.ttl {
			c.prev, c.cur, c.rotated = c.cur, make(map[string]entry[V], len(c.cur)), now
		}
		c.cur[key] = entry[V]{v: v, expires: now.Add(c.ttl)}
	}
	return v, nil
}

// Forget drops key (every key when key is "") here and, through the bus,
// on every other instance.
func (c *Cache[V]) Forget(ctx context.Context, key string) {
	c.drop(key)
	if c.bus != nil {
		c.bus.publish(ctx, c.name, key)
	}
}

// drop removes key, or everything for "", from this instance only.
func (c *Cache[V]) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgets++
	if key == "" {
		clear(c.cur)
		clear(c.prev)
		return
	}
	delete(c.cur, key)
	delete(c.prev, key)
}

// Len is the number of entries held, expired or not (for tests).
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.prev)
}

// dropper is a cache as the bus sees it.
type dropper interface{ drop(key string) }

// Bus carries Forget between instances over one coordination channel.
type Bus struct {
	coord PubSub
	log   *slog.Logger

	mu     sync.Mutex
	caches map[string]dropper
}

// channel is the coordination channel of forgets.
const channel = "recent:forget"

// PubSub is what the bus uses of coordination (coord.Coord): one
// channel, published and subscribed.
type PubSub interface {
	Publish(ctx context.Context, channel string, msg []byte) error
	Subscribe(ctx context.Context, channel string) (coord.Subscription, error)
}

// NewBus returns a bus over c; Run must run for other instances' forgets
// to arrive.
func NewBus(c PubSub, log *slog.Logger) *Bus {
	return &Bus{coord: c, log: log, caches: map[string]dropper{}}
}

func (b *Bus) register(name string, d dropper) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.caches[name] = d
}

// message is "<cache>\n<key>": cache names never hold a newline.
func (b *Bus) publish(ctx context.Context, name, key string) {
	// The change is committed whatever happens here: a failed publish
	// leaves other instances serving the old fact until its TTL ends.
	if err := b.coord.Publish(context.WithoutCancel(ctx), channel, []byte(name+"\n"+key)); err != nil {
		b.log.Warn("cache forget not published; other instances drop the entry within the TTL", "cache", name, "err", err)
	}
}

// Run subscribes and applies other instances' forgets until ctx ends.
// ready is closed once the subscription is in place. When the subscription
// ends while ctx lives (the coordinator closed), Run returns.
func (b *Bus) Run(ctx context.Context, ready chan<- struct{}) error {
	sub, err := b.coord.Subscribe(ctx, channel)
	if err != nil {
		return err
	}
	defer sub.Close()
	close(ready)
	for {
		select {
		case <-ctx.Done():
			return nil
		case msg, ok := <-sub.C():
			if !ok {
				return nil
			}
			b.apply(string(msg))
		}
	}
}

func (b *Bus) apply(msg string) {
	name, key, ok := strings.Cut(msg, "\n")
	if !ok {
		return
	}
	b.mu.Lock()
	d := b.caches[name]
	b.mu.Unlock()
	if d != nil {
		d.drop(key)
	}
}
