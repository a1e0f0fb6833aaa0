package redis_test

import (
	"context"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"hostgate/internal/coord"
	"hostgate/internal/coord/coordtest"
	"hostgate/internal/coord/redis"
	"hostgate/internal/eventually"
	"hostgate/internal/redistest"
)

func TestContract(t *testing.T) {
	coordtest.Run(t, func(t *testing.T) coord.Coord { return open(t, redistest.Prefix(t)) })
}

// open leaves closing to the caller, as coordtest.Run wants.
func open(t *testing.T, prefix string) *redis.Coord {
	t.Helper()
	c, err := redis.Open(t.Context(), redistest.URL(t), redis.WithPrefix(prefix))
	if err != nil {
		t.Fatalf("Open: got %v, want nil", err)
	}
	return c
}

func TestPrefixIsolates(t *testing.T) {
	ctx := t.Context()
	pa, pb := redistest.Prefix(t), redistest.Prefix(t)
	a, b := open(t, pa), open(t, pb)
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })

	must(t, a.PutTicket(ctx, "ticket", []byte("a"), time.Minute))
	must(t, b.PutTicket(ctx, "ticket", []byte("b"), time.Minute))
	_, err := a.Incr(ctx, "counter", time.Minute)
	must(t, err)
	must(t, a.SetPresence(ctx, "h1", "inst-a", time.Minute))

	if n, err := b.Incr(ctx, "counter", time.Minute); err != nil || n != 1 {
		t.Errorf("b.Incr: got %d, %v, want 1, nil (a's counter is a's)", n, err)
	}
	if v, ok, err := b.TakeTicket(ctx, "ticket"); err != nil || !ok || string(v) != "b" {
		t.Errorf("b.TakeTicket: got %q, %v, %v, want \"b\", true, nil", v, ok, err)
	}
	if inst, ok, err := b.Presence(ctx, "h1"); err != nil || ok {
		t.Errorf("b.Presence: got %q, %v, %v, want \"\", false, nil", inst, ok, err)
	}
	if n, err := b.CountPresence(ctx); err != nil || n != 0 {
		t.Errorf("b.CountPresence: got %d, %v, want 0, nil", n, err)
	}
	wantKeys(t, pa, "counter", "presence:host:h1", "presence:z", "ticket")
}

// TestPrefixIsolatesChannels: the same channel name under two prefixes is
// two channels. Each side's first message must be its own, which it would
// not be if the other's (published first) had reached it.
func TestPrefixIsolatesChannels(t *testing.T) {
	a, b := open(t, redistest.Prefix(t)), open(t, redistest.Prefix(t))
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	sa, sb := subscribe(t, a, "chan"), subscribe(t, b, "chan")
	must(t, a.Publish(t.Context(), "chan", []byte("from-a")))
	must(t, b.Publish(t.Context(), "chan", []byte("from-b")))
	wantRecv(t, sb, "from-b")
	wantRecv(t, sa, "from-a")
}

// TestPresenceSetPruned checks that expired hosts leave the sorted set
// behind CountPresence, and that nothing else is left once all expire.
func TestPresenceSetPruned(t *testing.T) {
	ctx, prefix := t.Context(), redistest.Prefix(t)
	c := open(t, prefix)
	t.Cleanup(func() { _ = c.Close() })
	must(t, c.RefreshPresence(ctx, "inst-a", []string{"h1", "h2", "h3"}, 50*time.Millisecond))
	// Set members outlive their keys until pruned, so this holds however
	// slowly the test runs.
	if n, err := rawClient(t).ZCard(ctx, prefix+"presence:z").Result(); err != nil || n != 3 {
		t.Fatalf("ZCARD presence:z: got %d, %v, want 3, nil", n, err)
	}
	var (
		n   int64
		err error
	)
	if !eventually.Within(5*time.Second, func() bool {
		n, err = c.CountPresence(ctx)
		return err == nil && n == 0
	}) {
		t.Fatalf("CountPresence after expiry: got %d, %v, want 0, nil", n, err)
	}
	wantKeys(t, prefix)
}

// TestRefreshPresenceLargeBatch refreshes 20,000 hosts, the size the
// chunked pipeline is for; the boundaries of the first chunk are checked.
func TestRefreshPresenceLargeBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 hosts")
	}
	ctx := t.Context()
	c := open(t, redistest.Prefix(t))
	t.Cleanup(func() { _ = c.Close() })
	ids := make([]string, 20_000)
	for i := range ids {
		ids[i] = "host-" + strconv.Itoa(i)
	}
	start := time.Now()
	must(t, c.RefreshPresence(ctx, "inst-a", ids, time.Minute))
	t.Logf("RefreshPresence(20,000 hosts) took %v", time.Since(start))
	if n, err := c.CountPresence(ctx); err != nil || n != int64(len(ids)) {
		t.Fatalf("CountPresence: got %d, %v, want %d, nil", n, err, len(ids))
	}
	for _, h := range []string{ids[0], ids[999], ids[1000], ids[len(ids)-1]} {
		if inst, ok, err := c.Presence(ctx, h); err != nil || !ok || inst != "inst-a" {
			t.Fatalf("Presence(%s): got %q, %v, %v, want inst-a, true, nil", h, inst, ok, err)
		}
	}
}

// TestRefreshPresenceAfterRestart: a restarted Redis has lost the scripts
// RefreshPresence calls by SHA, so it must fall back to sending them.
func TestRefreshPresenceAfterRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server processes")
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not in PATH")
	}
	ctx, addr := t.Context(), closedAddr(t)
	stop := startServer(t, bin, addr)
	c, err := redis.Open(ctx, "redis://"+addr+"/0")
	must(t, err)
	t.Cleanup(func() { _ = c.Close() })
	must(t, c.RefreshPresence(ctx, "inst-a", []string{"h1", "h2"}, time.Minute))
	stop()
	startServer(t, bin, addr)
	eventually.Error(t, 10*time.Second, "Ping after restart", func() error { return ping(t, c) })
	must(t, c.RefreshPresence(ctx, "inst-a", []string{"h1", "h2", "h3"}, time.Minute))
	if n, err := c.CountPresence(ctx); err != nil || n != 3 {
		t.Fatalf("CountPresence: got %d, %v, want 3, nil", n, err)
	}
}

// TestSlowSubscriberDrops fills a subscription that nobody reads: it keeps
// SubscriptionBuffer messages, drops and counts the rest.
func TestSlowSubscriberDrops(t *testing.T) {
	c := open(t, redistest.Prefix(t))
	t.Cleanup(func() { _ = c.Close() })
	s := subscribe(t, c, "chan")
	const extra = 10
	for i := range redis.SubscriptionBuffer + extra {
		must(t, c.Publish(t.Context(), "chan", []byte(strconv.Itoa(i))))
	}
	d := s.(interface{ Dropped() int64 })
	if !eventually.Within(5*time.Second, func() bool { return d.Dropped() == extra }) {
		t.Fatalf("dropped: got %d, want %d within 5s", d.Dropped(), extra)
	}
	if got := len(s.C()); got != redis.SubscriptionBuffer {
		t.Fatalf("buffered: got %d, want %d", got, redis.SubscriptionBuffer)
	}
	wantRecv(t, s, "0")
}

// TestCloseEndsSubscriptions: closing the Coord closes what it handed out,
// and it hands out no more.
func TestCloseEndsSubscriptions(t *testing.T) {
	c := open(t, redistest.Prefix(t))
	s, err := c.Subscribe(t.Context(), "chan")
	must(t, err)
	must(t, c.Close())
	select {
	case _, ok := <-s.C():
		if ok {
			t.Fatal("C after Coord.Close: got a message, want closed")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("C after Coord.Close: got still open after 5s, want closed")
	}
	must(t, s.Close())
	if _, err := c.Subscribe(t.Context(), "chan"); err == nil {
		t.Fatal("Subscribe after Close: got nil error, want one")
	}
}

// TestSubscribeFailsWhenDown: with no Redis, Subscribe reports an error
// instead of handing out a subscription that never delivers.
func TestSubscribeFailsWhenDown(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server processes")
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not in PATH")
	}
	addr := closedAddr(t)
	stop := startServer(t, bin, addr)
	c, err := redis.Open(t.Context(), "redis://"+addr+"/0")
	must(t, err)
	t.Cleanup(func() { _ = c.Close() })
	stop()
	if s, err := c.Subscribe(t.Context(), "chan"); err == nil {
		_ = s.Close()
		t.Fatal("Subscribe with server stopped: got nil error, want one")
	}
}

// TestPubSubSurvivesRestart kills and restarts a private redis-server under
// an open subscription: go-redis must resubscribe, and the same C must
// deliver again without the caller doing anything.
func TestPubSubSurvivesRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server processes")
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not in PATH")
	}
	addr := closedAddr(t)
	stop := startServer(t, bin, addr)
	c, err := redis.Open(t.Context(), "redis://"+addr+"/0", redis.WithPrefix("restart:"))
	must(t, err)
	t.Cleanup(func() { _ = c.Close() })
	s := subscribe(t, c, "chan")
	must(t, c.Publish(t.Context(), "chan", []byte("before")))
	wantRecv(t, s, "before")

	stop()
	// An outage window, not a wait for an event: the server stays down long
	// enough for the subscription's redial to fail, which happens inside
	// go-redis with nothing the test can see (its logger is process-wide).
	time.Sleep(200 * time.Millisecond)
	startServer(t, bin, addr)
	start := time.Now()
	// Messages published before the resubscription are lost, so publish
	// until one gets through.
	publishes := 0
	if !eventually.Within(15*time.Second, func() bool {
		_ = c.Publish(t.Context(), "chan", []byte("after"))
		publishes++
		select {
		case m, ok := <-s.C():
			if !ok {
				t.Fatal("after restart: got C closed, want it kept open")
			}
			if string(m) != "after" {
				t.Fatalf("after restart: got %q, want \"after\"", m)
			}
			return true
		case <-time.After(100 * time.Millisecond):
			return false
		}
	}) {
		t.Fatal("after restart: got nothing within 15s, want messages again")
	}
	t.Logf("delivering again %v after restart (%d publishes)", time.Since(start), publishes)
	must(t, s.Close())
	if _, ok := <-s.C(); ok {
		t.Fatal("after Close: got a message, want C closed")
	}
}

func subscribe(t *testing.T, c *redis.Coord, ch string) coord.Subscription {
	t.Helper()
	s, err := c.Subscribe(t.Context(), ch)
	must(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func wantRecv(t *testing.T, s coord.Subscription, want string) {
	t.Helper()
	select {
	case m, ok := <-s.C():
		if !ok || string(m) != want {
			t.Fatalf("receive: got %q (open=%v), want %q", m, ok, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("receive: got nothing within 5s, want %q", want)
	}
}

func rawClient(t *testing.T) *goredis.Client {
	t.Helper()
	o, err := goredis.ParseURL(redistest.URL(t))
	must(t, err)
	rdb := goredis.NewClient(o)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// wantKeys checks what really lands in Redis: the caller's keys behind the
// prefix, nothing else.
func wantKeys(t *testing.T, prefix string, want ...string) {
	t.Helper()
	rdb := rawClient(t)
	// SCAN may return a key more than once (while Redis rehashes the
	// keyspace), so the keys are collected as a set.
	seen := map[string]bool{}
	var got []string
	iter := rdb.Scan(t.Context(), 0, prefix+"*", 100).Iterator()
	for iter.Next(t.Context()) {
		k := strings.TrimPrefix(iter.Val(), prefix)
		if !seen[k] {
			seen[k] = true
			got = append(got, k)
		}
	}
	must(t, iter.Err())
	if strings.Join(sorted(got), ",") != strings.Join(want, ",") {
		t.Fatalf("keys under %q: got %v, want %v", prefix, sorted(got), want)
	}
}

func TestOpenRejectsBadURL(t *testing.T) {
	_, err := redis.Open(t.Context(), "http://user:hunter2@127.0.0.1:6379/0")
	if err == nil {
		t.Fatal("Open(http URL): got nil error, want one")
	}
	_, err = redis.Open(t.Context(), "redis://user:hunter2@127.0.0.1:6379/%zz")
	if err == nil {
		t.Fatal("Open(bad escape): got nil error, want one")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("Open error: got %q, want no password in it", err)
	}
}

// TestOpenFailsFast guards the short timeouts /readyz depends on: a Redis
// that is not listening must be reported within about a second.
func TestOpenFailsFast(t *testing.T) {
	addr := closedAddr(t)
	start := time.Now()
	_, err := redis.Open(t.Context(), "redis://"+addr+"/0")
	if err == nil {
		t.Fatal("Open(closed port): got nil error, want one")
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Fatalf("Open(closed port): got failure after %v, want under 1.5s", d)
	}
}

// TestPingRecovers stops and restarts a private redis-server under one
// Coord: Ping must fail while it is down and pass again once it is back,
// without reopening.
func TestPingRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server processes")
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not in PATH")
	}
	addr := closedAddr(t)
	stop := startServer(t, bin, addr)
	c, err := redis.Open(t.Context(), "redis://"+addr+"/0")
	must(t, err)
	t.Cleanup(func() { _ = c.Close() })

	stop()
	if err := c.Ping(t.Context()); err == nil {
		t.Fatal("Ping with server stopped: got nil, want an error")
	}
	startServer(t, bin, addr)
	eventually.Error(t, 10*time.Second, "Ping after restart", func() error { return ping(t, c) })
}

// ping is c.Ping, given at most 3s.
func ping(t *testing.T, c *redis.Coord) error {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	return c.Ping(ctx)
}

// startServer runs a throwaway, non-persistent redis-server on addr and
// returns a func that stops it (also run at cleanup).
func startServer(t *testing.T, bin, addr string) (stop func()) {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	must(t, err)
	cmd := exec.Command(bin, "--bind", host, "--port", port, "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	must(t, cmd.Start())
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	t.Cleanup(stop)
	eventually.Error(t, 5*time.Second, "redis-server on "+addr+" listening", func() error {
		conn, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			_ = conn.Close()
		}
		return err
	})
	return stop
}

// closedAddr returns a local address that nothing listens on, by taking a
// free port and releasing it.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	addr := l.Addr().String()
	must(t, l.Close())
	return addr
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	slices.Sort(s)
	return s
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
}

// TestRoundTripsCountOnlyFailures: a healthy Redis (of any version: 7.0
// refuses CLIENT SETINFO, which go-redis sends on every new connection)
// yields no failed round trip through the coordinator's own calls, a
// missing key included, so an alert on the error count stays quiet; a
// command Redis refuses is one.
func TestRoundTripsCountOnlyFailures(t *testing.T) {
	ctx, prefix := t.Context(), redistest.Prefix(t)
	var mu sync.Mutex
	var ok, failed []string
	c, err := redis.Open(ctx, redistest.URL(t), redis.WithPrefix(prefix), redis.WithRoundTrip(func(_ time.Duration, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failed = append(failed, err.Error())
		} else {
			ok = append(ok, "")
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	// Several at once, so that the pool opens more than one connection.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			key := "counter" + strconv.Itoa(i)
			if _, err := c.Incr(ctx, key, time.Minute); err != nil {
				t.Error(err)
			}
			if _, found, err := c.TakeTicket(ctx, "no-such-ticket"+strconv.Itoa(i)); err != nil || found {
				t.Errorf("TakeTicket: %v, %v", found, err)
			}
			must(t, c.SetPresence(ctx, "h"+strconv.Itoa(i), "inst", time.Minute))
			must(t, c.Ping(ctx))
		})
	}
	wg.Wait()
	mu.Lock()
	if len(failed) != 0 || len(ok) < 8*4 {
		t.Errorf("after a healthy workload: %d ok, failed %q; want at least 32 ok and none failed", len(ok), failed)
	}
	mu.Unlock()

	// A counter key holding text: INCR fails, and that is one failure.
	raw := rawClient(t)
	must(t, raw.Set(ctx, prefix+"text", "not a number", time.Minute).Err())
	if _, err := c.Incr(ctx, "text", time.Minute); err == nil {
		t.Fatal("Incr of a text value succeeded")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(failed) != 1 {
		t.Errorf("after a refused INCR: failed %q, want one", failed)
	}
}
