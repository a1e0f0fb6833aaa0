// Package redis is the coord.Coord backed by Redis, for production and for
// several hub instances that must share revoked sessions, lockouts, tickets,
// rate counters and agent presence, and route messages to each other over
// pub/sub.
package redis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"hostgate/internal/coord"
)

// Defaults for what the URL leaves unset. They are short so that a stopped
// Redis makes Ping (and /readyz) fail within a couple of seconds instead of
// hanging on go-redis's longer defaults and retries.
const (
	dialTimeout = 2 * time.Second
	ioTimeout   = 2 * time.Second
	// One command retry survives a pooled connection that died with a Redis
	// restart; more would only delay reporting a real outage.
	maxRetries = 1
	// Our command retry already redials; the pool's own dial retries would
	// multiply the wait.
	dialerRetries = 1
)

var errBadTTL = errors.New("ttl must be positive")

// incrScript increments and starts the window on the first increment in one
// atomic step, so a crash between the two can never leave a counter without
// expiry.
var incrScript = goredis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then
	redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return n
`)

var _ coord.Coord = (*Coord)(nil)

// Coord is a coord.Coord on one Redis database. It is safe for concurrent
// use; go-redis reconnects by itself after an outage.
type Coord struct {
	rdb    *goredis.Client
	prefix string // in front of every key and pub/sub channel

	mu     sync.Mutex
	subs   map[*subscription]struct{} // open subscriptions, closed by Close
	closed bool
}

// Option configures Open.
type Option func(*Coord)

// WithPrefix puts prefix in front of every key and pub/sub channel, so
// tests and several deployments can share one Redis.
func WithPrefix(prefix string) Option {
	return func(c *Coord) { c.prefix = prefix }
}

// WithRoundTrip calls observe after every round trip to Redis (a command,
// or a pipeline as one), with its duration and error; a missing key
// (redis.Nil) is not an error, and neither is a Redis older than 7.2
// refusing a command go-redis sends by itself on each new connection and
// then ignores (driverOptional). The hub's metrics use it, and an alert
// on their error count (docs/operations-guide.md) must not fire for a
// healthy Redis 7.0.
func WithRoundTrip(observe func(took time.Duration, err error)) Option {
	return func(c *Coord) { c.rdb.AddHook(roundTripHook(observe)) }
}

type roundTripHook func(time.Duration, error)

func (h roundTripHook) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h roundTripHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		h.observe(start, roundTripErr(err, cmd))
		return err
	}
}

func (h roundTripHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmds)
		h.observe(start, roundTripErr(err, cmds...))
		return err
	}
}

func (h roundTripHook) observe(start time.Time, err error) {
	h(time.Since(start), err)
}

// roundTripErr is the failure of a round trip that returned err for cmds,
// or nil when it only found no key (redis.Nil) or Redis refused a
// driverOptional command. A pipeline's err is its first failed command's,
// so a GET of a missing key ahead of a failed command still counts as
// failed.
func roundTripErr(err error, cmds ...goredis.Cmder) error {
	if err == nil {
		return nil
	}
	if len(cmds) == 1 {
		if excused(cmds[0], err) {
			return nil
		}
		return err
	}
	explained := false // err is the error of one of cmds
	for _, c := range cmds {
		e := c.Err()
		switch {
		case e == nil:
		case excused(c, e):
			explained = true
		default:
			return e
		}
	}
	if explained || errors.Is(err, goredis.Nil) {
		return nil
	}
	return err // a failure no command carries, e.g. the connection's
}

// excused reports whether err, returned for cmd, is no failure: no key, or
// Redis's refusal (a reply, not a broken connection) of a driverOptional
// command.
func excused(cmd goredis.Cmder, err error) bool {
	if errors.Is(err, goredis.Nil) {
		return true
	}
	_, reply := errors.AsType[goredis.Error](err)
	return reply && driverOptional(cmd)
}

// driverOptional reports whether cmd is one that go-redis sends on its own
// while opening a connection and whose refusal it ignores: CLIENT SETINFO
// (Redis 7.2 and later) and CLIENT MAINT_NOTIFICATIONS (Redis 8 and
// later). Older servers answer "ERR unknown subcommand" to each new
// connection. The hub itself never sends CLIENT.
func driverOptional(cmd goredis.Cmder) bool {
	args := cmd.Args()
	if cmd.Name() != "client" || len(args) < 2 {
		return false
	}
	sub, _ := args[1].(string)
	return strings.EqualFold(sub, "setinfo") || strings.EqualFold(sub, "maint_notifications")
}

// Open connects to the redis:// (or rediss://) URL and pings it once, so a
// wrong address or password fails at startup. Timeouts given in the URL's
// query win over the short defaults.
func Open(ctx context.Context, rawURL string, opts ...Option) (*Coord, error) {
	routeDriverLog()
	o, err := goredis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("redis: parse url: %w", redactURLError(err))
	}
	applyDefaults(o)
	c := &Coord{rdb: goredis.NewClient(o), subs: map[*subscription]struct{}{}}
	for _, opt := range opts {
		opt(c)
	}
	if err := c.Ping(ctx); err != nil {
		_ = c.rdb.Close()
		return nil, &UnreachableError{Addr: o.Addr, Err: err}
	}
	return c, nil
}

// UnreachableError is a first ping that failed: Redis at Addr did not
// answer, or refused the connection's credentials.
type UnreachableError struct {
	Addr string
	Err  error
}

func (e *UnreachableError) Error() string { return fmt.Sprintf("redis at %s: %v", e.Addr, e.Err) }

func (e *UnreachableError) Unwrap() error { return e.Err }

// go-redis prints its own messages (each failed dial of its pool, say) to
// standard error, which would bury the hub's one-line report of a Redis
// outage; they go to slog's default logger at debug level instead, or to
// the logger SetLogger names. go-redis's logger is process-wide: it is
// replaced once, by the first Open or SetLogger, and redisLogger then reads
// driverLog on every message.
var (
	routeDriverLog = sync.OnceFunc(func() { goredis.SetLogger(redisLogger{}) })
	driverLog      atomic.Pointer[slog.Logger] // nil: slog.Default()
)

// SetLogger sends go-redis's own messages to log, at debug level. It is
// process-wide: the hostgate binary calls it, tests leave the default.
func SetLogger(log *slog.Logger) {
	driverLog.Store(log)
	routeDriverLog()
}

type redisLogger struct{}

func (redisLogger) Printf(ctx context.Context, format string, v ...any) {
	log := driverLog.Load()
	if log == nil {
		log = slog.Default()
	}
	log.DebugContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}

func applyDefaults(o *goredis.Options) {
	if o.DialTimeout == 0 {
		o.DialTimeout = dialTimeout
	}
	if o.ReadTimeout == 0 {
		o.ReadTimeout = ioTimeout
	}
	if o.WriteTimeout == 0 {
		o.WriteTimeout = ioTimeout
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = maxRetries
	}
	if o.DialerRetries == 0 {
		o.DialerRetries = dialerRetries
	}
}

// redactURLError drops the URL that net/url quotes in its errors, because
// it may carry the Redis password.
func redactURLError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}

func (c *Coord) key(k string) string { return c.prefix + k }

// PutTicket stores value under key for ttl.
func (c *Coord) PutTicket(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("redis: put ticket: %w", errBadTTL)
	}
	if err := c.rdb.Set(ctx, c.key(key), value, atLeastMs(ttl)).Err(); err != nil {
		return fmt.Errorf("redis: put ticket: %w", err)
	}
	return nil
}

// TakeTicket reads and deletes key with GETDEL (Redis 6.2+), which Redis
// runs atomically, so at most one caller gets the value.
func (c *Coord) TakeTicket(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := c.rdb.GetDel(ctx, c.key(key)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("redis: take ticket: %w", err)
	}
	return v, true, nil
}

// Incr adds one to the counter at key and returns the new count; the first
// increment starts a window after which the counter disappears.
func (c *Coord) Incr(ctx context.Context, key string, window time.Duration) (int64, error) {
	if window <= 0 {
		return 0, fmt.Errorf("redis: incr: %w", errBadTTL)
	}
	ms := atLeastMs(window).Milliseconds()
	n, err := incrScript.Run(ctx, c.rdb, []string{c.key(key)}, ms).Int64()
	if err != nil {
		return 0, fmt.Errorf("redis: incr: %w", err)
	}
	return n, nil
}

// Ping asks Redis for PONG on a pooled or freshly dialled connection, so it
// recovers as soon as Redis does.
func (c *Coord) Ping(ctx context.Context) error {
	if err := c.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis: ping: %w", err)
	}
	return nil
}

// Name returns "redis".
func (c *Coord) Name() string { return "redis" }

// Close closes every open subscription (their C channels close) and then
// the connection pool.
func (c *Coord) Close() error {
	c.closeSubs()
	if err := c.rdb.Close(); err != nil {
		return fmt.Errorf("redis: close: %w", err)
	}
	return nil
}

// atLeastMs rounds a positive duration below Redis's 1 ms resolution up, so
// it still expires instead of being rejected or ignored.
func atLeastMs(d time.Duration) time.Duration {
	return max(d, time.Millisecond)
}
