// Package redistest gives tests a reachable Redis and a private key prefix
// that is deleted afterwards, so Redis-backed tests can share one server
// (locally or in CI) without seeing each other's keys.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"slices"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"hostgate/internal/coord/redis"
)

// EnvURL names the environment variable that points tests at a Redis.
const EnvURL = "HOSTGATE_TEST_REDIS_URL"

// DefaultURL is used when EnvURL is unset.
const DefaultURL = "redis://127.0.0.1:6379/0"

const pingTimeout = 2 * time.Second

// URL returns the test Redis URL after checking that Redis answers. Without
// one, tests skip locally but fail in CI (CI=true), where a missing Redis is
// a broken pipeline rather than a developer without Redis.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		u = DefaultURL
	}
	if err := ping(u); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redistest: no Redis at %s (CI=true, so failing; set %s to point elsewhere): %v", redactedURL(u), EnvURL, err)
		}
		t.Skipf("redistest: skipping, no Redis at %s (set %s to point elsewhere): %v", redactedURL(u), EnvURL, err)
	}
	return u
}

func ping(rawURL string) error {
	rdb, err := newClient(rawURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	return rdb.Ping(ctx).Err()
}

func newClient(rawURL string) (*goredis.Client, error) {
	o, err := goredis.ParseURL(rawURL)
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return nil, ue.Err // its text quotes the URL, password and all
	}
	if err != nil {
		return nil, err
	}
	// Fail at once on a refused connection rather than after go-redis's
	// retries, since every Redis test pays this on a machine without Redis.
	o.DialTimeout = pingTimeout
	o.MaxRetries = -1
	o.DialerRetries = 1
	return goredis.NewClient(o), nil
}

// Prefix returns a key prefix unique to this call ("test:<hex>:") and
// deletes every key under it when the test ends.
func Prefix(t testing.TB) string {
	t.Helper()
	u := URL(t)
	prefix := "test:" + randomHex(t) + ":"
	t.Cleanup(func() {
		if err := deletePrefix(u, prefix); err != nil {
			t.Errorf("redistest: delete keys under %q: %v", prefix, err)
		}
	})
	return prefix
}

func randomHex(t testing.TB) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("redistest: random prefix: %v", err)
	}
	return hex.EncodeToString(b)
}

// Flush deletes every key under prefix now, as a Redis restart without
// persistence would, for tests of what must survive that.
func Flush(t testing.TB, prefix string) {
	t.Helper()
	if err := deletePrefix(URL(t), prefix); err != nil {
		t.Fatalf("redistest: flush %q: %v", prefix, err)
	}
}

// deletePrefix runs after the test, when t.Context is already cancelled,
// hence its own context.
func deletePrefix(rawURL, prefix string) error {
	rdb, err := newClient(rawURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	keys, err := scanAll(ctx, rdb, prefix+"*")
	if err != nil {
		return err
	}
	for batch := range slices.Chunk(keys, 500) {
		if err := rdb.Del(ctx, batch...).Err(); err != nil {
			return err
		}
	}
	return nil
}

func scanAll(ctx context.Context, rdb *goredis.Client, match string) ([]string, error) {
	var keys []string
	iter := rdb.Scan(ctx, 0, match, 500).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	return keys, iter.Err()
}

// Open returns a redis.Coord on the test Redis under a fresh Prefix, closed
// when the test ends.
func Open(t testing.TB) *redis.Coord {
	t.Helper()
	u := URL(t)
	c, err := redis.Open(t.Context(), u, redis.WithPrefix(Prefix(t)))
	if err != nil {
		t.Fatalf("redistest: open: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("redistest: close: %v", err)
		}
	})
	return c
}

// redactedURL hides a password so skip and failure messages can show
// which Redis was tried.
func redactedURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
