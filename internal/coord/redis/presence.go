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

// presenceChunk bounds the hosts per script call: one call blocks Redis
// for its run, so a 20,000-host refresh is 20 short scripts rather than
// one long one.
const presenceChunk = 1000

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

// clearPresenceScript: KEYS = host keys..., set key; ARGV = instance, host
// ids... (one per host key). It deletes a host only when the instance
// still holds it; an absent key means the set member is stale, so it goes
// too. It returns how many it deleted.
var clearPresenceScript = goredis.NewScript(`
local z = KEYS[#KEYS]
local n = 0
for i = 1, #KEYS - 1 do
	local v = redis.call('GET', KEYS[i])
	if v == ARGV[1] then
		redis.call('DEL', KEYS[i])
		n = n + 1
	end
	if v == ARGV[1] or not v then
		redis.call('ZREM', z, ARGV[i + 1])
	end
end
return n
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
// chunks of presenceChunk hosts (presenceChunks).
func (c *Coord) RefreshPresence(ctx context.Context, instanceID string, hostIDs []string, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("redis: refresh presence: %w", errBadTTL)
	}
	ms := atLeastMs(ttl).Milliseconds()
	err := c.presenceChunks(ctx, setPresenceScript, hostIDs, instanceID, ms)
	if err != nil {
		return fmt.Errorf("redis: refresh presence: %w", err)
	}
	return nil
}

// presenceChunks runs script over hostIDs in chunks of presenceChunk
// hosts, one round trip each, with KEYS the chunk's host keys then the
// set key, and ARGV first then the chunk's host ids. A chunk that fails
// does not stop the others: under load, most hosts are done even when a
// few round trips time out, and the error reports the failures for the
// caller to retry. Running a chunk twice is harmless for both scripts.
func (c *Coord) presenceChunks(ctx context.Context, script *goredis.Script, hostIDs []string, first ...any) error {
	var failed []error
	for chunk := range slices.Chunk(hostIDs, presenceChunk) {
		if err := c.presenceChunk(ctx, script, chunk, first); err != nil {
			failed = append(failed, err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d chunks failed: %w",
			len(failed), (len(hostIDs)+presenceChunk-1)/presenceChunk, errors.Join(failed...))
	}
	return nil
}

// presenceChunk runs script for one chunk. EVALSHA keeps the request
// small; a Redis that lost its script cache (a restart) answers NOSCRIPT,
// and the chunk goes again with the script body.
func (c *Coord) presenceChunk(ctx context.Context, script *goredis.Script, chunk []string, first []any) error {
	keys := make([]string, 0, len(chunk)+1)
	args := make([]any, 0, len(chunk)+len(first))
	args = append(args, first...)
	for _, h := range chunk {
		keys = append(keys, c.presenceKey(h))
		args = append(args, h)
	}
	keys = append(keys, c.presenceSet())
	err := script.EvalSha(ctx, c.rdb, keys, args...).Err()
	if goredis.HasErrorPrefix(err, "NOSCRIPT") {
		err = script.Eval(ctx, c.rdb, keys, args...).Err()
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

// PresenceMany reads the holders of hostIDs with MGET, one round trip per
// presenceChunk hosts (a page of a host list is one).
func (c *Coord) PresenceMany(ctx context.Context, hostIDs []string) (map[string]string, error) {
	out := make(map[string]string, len(hostIDs))
	for chunk := range slices.Chunk(hostIDs, presenceChunk) {
		keys := make([]string, len(chunk))
		for i, h := range chunk {
			keys[i] = c.presenceKey(h)
		}
		vals, err := c.rdb.MGet(ctx, keys...).Result()
		if err != nil {
			return nil, fmt.Errorf("redis: presence many: %w", err)
		}
		for i, v := range vals {
			if s, ok := v.(string); ok {
				out[chunk[i]] = s
			}
		}
	}
	return out, nil
}

// ClearPresence deletes each host's presence that instanceID holds,
// compare and delete in one script per chunk of presenceChunk hosts.
func (c *Coord) ClearPresence(ctx context.Context, instanceID string, hostIDs []string) error {
	if err := c.presenceChunks(ctx, clearPresenceScript, hostIDs, instanceID); err != nil {
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
