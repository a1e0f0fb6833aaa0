package redis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Presence keeps one key per host, <prefix>presence:host:<id> = instance id
// with a TTL, which answers Presence. Counting those keys would need a scan,
// so every write also records the host in the sorted set <prefix>presence:z
// with its expiry (Unix ms) as score; CountPresence counts the scores still
// in the future. All writes are Lua scripts that take the time from Redis
// (TIME) and change the key and the set together, so the two always agree
// and the instances' clocks do not matter.

// refreshChunk bounds the hosts per script call: one call blocks Redis for
// its run, so a 20,000-host refresh is 20 short scripts sent in one pipeline
// (one round trip) rather than one long one.
const refreshChunk = 1000

// setPresenceScript: KEYS = host keys..., set key; ARGV = instance, ttl ms,
// host ids... (one per host key). It also prunes expired set members, so the
// set stays bounded even if nobody counts. Times are whole milliseconds, so
// "score < now" is "score <= now-1".
var setPresenceScript = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
local z = KEYS[#KEYS]
for i = 1, #KEYS - 1 do
	redis.call('SET', KEYS[i], ARGV[1], 'PX', ttl)
	redis.call('ZADD', z, now + ttl, ARGV[i + 2])
end
redis.call('ZREMRANGEBYSCORE', z, '-inf', now - 1)
return #KEYS - 1
`)

// clearPresenceScript: KEYS = host key, set key; ARGV = instance, host id.
// It deletes only when the instance still holds the host; an absent key
// means the set member is stale, so it goes too.
var clearPresenceScript = goredis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then
	redis.call('DEL', KEYS[1])
	redis.call('ZREM', KEYS[2], ARGV[2])
	return 1
end
if not v then
	redis.call('ZREM', KEYS[2], ARGV[2])
end
return 0
`)

// countPresenceScript: KEYS = set key. A key whose PX expiry equals now is
// still alive in Redis, so scores equal to now count.
var countPresenceScript = goredis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 1)
return redis.call('ZCOUNT', KEYS[1], now, '+inf')
`)

func (c *Coord) presenceKey(hostID string) string { return c.prefix + "presence:host:" + hostID }
func (c *Coord) presenceSet() string              { return c.prefix + "presence:z" }

// SetPresence records hostID as held by instanceID for ttl, replacing any
// earlier holder.
func (c *Coord) SetPresence(ctx context.Context, hostID, instanceID string, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("redis: set presence: %w", errBadTTL)
	}
	keys := []string{c.presenceKey(hostID), c.presenceSet()}
	err := setPresenceScript.Run(ctx, c.rdb, keys, instanceID, atLeastMs(ttl).Milliseconds(), hostID).Err()
	if err != nil {
		return fmt.Errorf("redis: set presence: %w", err)
	}
	return nil
}

// RefreshPresence sets every host in hostIDs to instanceID for ttl, in
// chunks of refreshChunk hosts, one round trip each. A chunk that fails
// does not stop the others: under load, most of an instance's hosts stay
// present even when a few round trips time out, and the error reports
// the failures for the caller to retry.
func (c *Coord) RefreshPresence(ctx context.Context, instanceID string, hostIDs []string, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("redis: refresh presence: %w", errBadTTL)
	}
	ms := atLeastMs(ttl).Milliseconds()
	var failed []error
	for chunk := range slices.Chunk(hostIDs, refreshChunk) {
		if err := c.refreshChunk(ctx, instanceID, chunk, ms); err != nil {
			failed = append(failed, err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("redis: refresh presence: %d of %d chunks failed: %w",
			len(failed), (len(hostIDs)+refreshChunk-1)/refreshChunk, errors.Join(failed...))
	}
	return nil
}

// refreshChunk runs setPresenceScript for one chunk. EVALSHA keeps the
// request small; a Redis that lost its script cache (a restart) answers
// NOSCRIPT, and the chunk goes again with the script body. Running a
// chunk twice is harmless: it only sets.
func (c *Coord) refreshChunk(ctx context.Context, instanceID string, chunk []string, ms int64) error {
	keys := make([]string, 0, len(chunk)+1)
	args := make([]any, 0, len(chunk)+2)
	args = append(args, instanceID, ms)
	for _, h := range chunk {
		keys = append(keys, c.presenceKey(h))
		args = append(args, h)
	}
	keys = append(keys, c.presenceSet())
	err := setPresenceScript.EvalSha(ctx, c.rdb, keys, args...).Err()
	if goredis.HasErrorPrefix(err, "NOSCRIPT") {
		err = setPresenceScript.Eval(ctx, c.rdb, keys, args...).Err()
	}
	return err
}

// Presence returns hostID's holder; ok is false when absent or expired.
func (c *Coord) Presence(ctx context.Context, hostID string) (string, bool, error) {
	v, err := c.rdb.Get(ctx, c.presenceKey(hostID)).Result()
	if errors.Is(err, goredis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("redis: presence: %w", err)
	}
	return v, true, nil
}

// ClearPresence deletes hostID's presence only if instanceID holds it,
// compare and delete in one script.
func (c *Coord) ClearPresence(ctx context.Context, hostID, instanceID string) error {
	keys := []string{c.presenceKey(hostID), c.presenceSet()}
	if err := clearPresenceScript.Run(ctx, c.rdb, keys, instanceID, hostID).Err(); err != nil {
		return fmt.Errorf("redis: clear presence: %w", err)
	}
	return nil
}

// CountPresence counts live presences across every instance sharing this
// Redis and prefix, pruning expired set members first.
func (c *Coord) CountPresence(ctx context.Context) (int64, error) {
	n, err := countPresenceScript.Run(ctx, c.rdb, []string{c.presenceSet()}).Int64()
	if err != nil {
		return 0, fmt.Errorf("redis: count presence: %w", err)
	}
	return n, nil
}
