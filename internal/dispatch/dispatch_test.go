package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/battery"
	"hostgate/internal/coord"
	"hostgate/internal/coord/inproc"
	"hostgate/internal/eventually"
)

// fakeAgent answers commands the way an agent would, through Deliver.
type fakeAgent struct {
	d      *Dispatcher
	mu     sync.Mutex
	closed string
	silent atomic.Bool
}

func (a *fakeAgent) WriteMessage(msg []byte) error {
	e, err := agentproto.Decode(msg)
	if err != nil || e.Type != agentproto.TypeCmd {
		return err
	}
	if a.silent.Load() {
		return nil
	}
	var c agentproto.Command
	_ = agentproto.DecodeBody(e, &c)
	result, _ := json.Marshal(map[string]string{"op": c.Op})
	go a.d.Deliver(e.ID, agentproto.Response{OK: true, Result: result})
	return nil
}

func (a *fakeAgent) Close(reason string) {
	a.mu.Lock()
	a.closed = reason
	a.mu.Unlock()
}

func (a *fakeAgent) closedWith() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closed
}

func startDispatcher(t *testing.T, c coord.Coord, name string) *Dispatcher {
	t.Helper()
	d := New(name, c, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx, ready) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("run: %v", err)
	}
	t.Cleanup(func() { cancel(); <-done })
	return d
}

func TestSendLocalRemoteOfflineTimeout(t *testing.T) {
	c := inproc.New()
	t.Cleanup(func() { c.Close() })
	a, b := startDispatcher(t, c, "a"), startDispatcher(t, c, "b")
	ctx := context.Background()
	agent := &fakeAgent{d: a}
	if err := a.Register(ctx, "h1", agent); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]*Dispatcher{"local": a, "remote": b} {
		r, err := d.Send(ctx, "h1", "agent.ping", nil, time.Second)
		if err != nil || !r.OK || string(r.Result) != `{"op":"agent.ping"}` {
			t.Errorf("%s send = %+v, %v", name, r, err)
		}
	}
	if on, _ := b.Online(ctx, "h1"); !on {
		t.Error("b does not see h1 online")
	}
	if n, _ := b.CountOnline(ctx); n != 1 {
		t.Errorf("CountOnline = %d, want 1", n)
	}
	if _, err := b.Send(ctx, "nobody", "agent.ping", nil, time.Second); apperr.Code(err) != CodeHostOffline {
		t.Errorf("send to an unconnected host: %v, want host_offline", err)
	}
	agent.silent.Store(true)
	for name, d := range map[string]*Dispatcher{"local": a, "remote": b} {
		if _, err := d.Send(ctx, "h1", "agent.ping", nil, 100*time.Millisecond); apperr.Code(err) != CodeAgentTimeout {
			t.Errorf("%s send to a silent agent: %v, want agent_timeout", name, err)
		}
	}
}

// TestDroppedLinkEndsCommandsAtOnce: a command out on a connection that
// closes ends with agent_disconnected when the connection goes, not at its
// timeout, on the holding instance and through another.
func TestDroppedLinkEndsCommandsAtOnce(t *testing.T) {
	c := inproc.New()
	t.Cleanup(func() { c.Close() })
	a, b := startDispatcher(t, c, "a"), startDispatcher(t, c, "b")
	ctx := context.Background()
	for name, d := range map[string]*Dispatcher{"local": a, "remote": b} {
		agent := &fakeAgent{d: a}
		agent.silent.Store(true)
		if err := a.Register(ctx, "h1", agent); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := d.Send(ctx, "h1", "agent.ping", nil, time.Hour)
			done <- err
		}()
		eventually.True(t, 5*time.Second, "the command is out", func() bool { return a.outstanding(agent) == 1 })
		a.Unregister("h1", agent)
		select {
		case err := <-done:
			if apperr.Code(err) != CodeAgentDisconnected {
				t.Errorf("%s: %v, want agent_disconnected", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the command outlived its connection", name)
		}
		if n := a.outstanding(agent); n != 0 {
			t.Errorf("%s: %d commands still tracked on the closed connection", name, n)
		}
	}
}

// outstanding is how many commands are out on c (for tests).
func (d *Dispatcher) outstanding(c Conn) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.inflight[c])
}

func TestDisconnectReachesTheHoldingInstance(t *testing.T) {
	c := inproc.New()
	t.Cleanup(func() { c.Close() })
	a, b := startDispatcher(t, c, "a"), startDispatcher(t, c, "b")
	ctx := context.Background()
	agent := &fakeAgent{d: a}
	a.Register(ctx, "h1", agent)
	b.Disconnect(ctx, "h1", "secret rotated")
	eventually.Error(t, 5*time.Second, "the agent closed for the rotation", func() error {
		if got := agent.closedWith(); got != "secret rotated" {
			return fmt.Errorf("closed with %q", got)
		}
		return nil
	})
	a.Unregister("h1", agent)
	if on, _ := b.Online(ctx, "h1"); on {
		t.Error("h1 still online after disconnect")
	}
}

func TestNewConnectionReplacesOldEverywhere(t *testing.T) {
	c := inproc.New()
	t.Cleanup(func() { c.Close() })
	a, b := startDispatcher(t, c, "a"), startDispatcher(t, c, "b")
	ctx := context.Background()
	old := &fakeAgent{d: a}
	a.Register(ctx, "h1", old)
	fresh := &fakeAgent{d: b}
	start := time.Now()
	b.Register(ctx, "h1", fresh)
	eventually.True(t, 5*time.Second, "the old connection closed", func() bool { return old.closedWith() != "" })
	took := time.Since(start)
	// The old connection's late unregister must not erase the new presence.
	a.Unregister("h1", old)
	if owner, ok, _ := c.Presence(ctx, "h1"); !ok || owner != "b" {
		t.Errorf("presence = %q %v, want b", owner, ok)
	}
	if fresh.closedWith() != "" {
		t.Errorf("new connection closed: %q", fresh.closedWith())
	}
	if r, err := a.Send(ctx, "h1", "agent.ping", nil, time.Second); err != nil || !r.OK {
		t.Errorf("send via a to the new connection on b: %+v %v", r, err)
	}
	// docs/agent-protocol.md: a connection of the same host replaces an
	// older one on any instance; there is no credential-generation check
	// that tells a cloned agent from a reconnecting one.
	battery.Report(t, "T47", "a second connection of the same host (a clone) on instance b closes the one on a after %d ms (%q); presence moves to b; no clone detection, lock or audit (documented: the newer connection replaces the older)", took.Milliseconds(), old.closedWith())
}

// flakyPresence fails its first refreshes, as a coordination store does
// when overloaded, and counts them.
type flakyPresence struct {
	coord.Coord
	calls, fail atomic.Int64
}

func (f *flakyPresence) RefreshPresence(ctx context.Context, inst string, ids []string, ttl time.Duration) error {
	if f.calls.Add(1) <= f.fail.Load() {
		return context.DeadlineExceeded
	}
	return f.Coord.RefreshPresence(ctx, inst, ids, ttl)
}

func TestPresenceRenewalRetriesSoonAfterAFailure(t *testing.T) {
	c := inproc.New()
	t.Cleanup(func() { c.Close() })
	f := &flakyPresence{Coord: c}
	f.fail.Store(3)
	d := New("a", f, slog.New(slog.NewTextHandler(io.Discard, nil)))
	d.conns["h1"] = held{conn: &fakeAgent{d: d}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	start := time.Now()
	go func() { defer close(done); d.keepPresence(ctx, 300*time.Millisecond, time.Millisecond) }()
	// Three failures, each retried after a millisecond, then a success:
	// four renewals soon after the first interval, where waiting a whole
	// interval after each failure would take four.
	eventually.Error(t, 5*time.Second, "four renewals", func() error {
		if n := f.calls.Load(); n < 4 {
			return fmt.Errorf("%d renewals", n)
		}
		return nil
	})
	took := time.Since(start)
	cancel()
	<-done
	if took > 900*time.Millisecond {
		t.Errorf("four renewals took %v: failures were not retried before the next interval", took)
	}
	if inst, ok, err := c.Presence(context.Background(), "h1"); err != nil || !ok || inst != "a" {
		t.Fatalf("presence after the retries: %q %v %v", inst, ok, err)
	}
}

// lostStore is a coordination store that can be down (every call fails)
// and that forgets everything while down, as a Redis restarted without
// persistence does.
type lostStore struct {
	coord.Coord
	down  atomic.Bool
	pings atomic.Int64
}

func (l *lostStore) Ping(ctx context.Context) error {
	l.pings.Add(1)
	if l.down.Load() {
		return context.DeadlineExceeded
	}
	return l.Coord.Ping(ctx)
}

func (l *lostStore) RefreshPresence(ctx context.Context, inst string, ids []string, ttl time.Duration) error {
	if l.down.Load() {
		return context.DeadlineExceeded
	}
	return l.Coord.RefreshPresence(ctx, inst, ids, ttl)
}

// TestPresenceRenewedWhenCoordinationReturns: coordination goes down and
// comes back empty between two renewals an hour apart; the instance's hosts
// are present again within moments of its return, not at the next renewal.
func TestPresenceRenewedWhenCoordinationReturns(t *testing.T) {
	c := inproc.New()
	t.Cleanup(func() { c.Close() })
	l := &lostStore{Coord: c}
	d := New("a", l, slog.New(slog.NewTextHandler(io.Discard, nil)))
	d.conns["h1"] = held{conn: &fakeAgent{d: d}}
	ctx := context.Background()
	if err := c.SetPresence(ctx, "h1", "a", PresenceTTL); err != nil {
		t.Fatal(err)
	}
	run, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); d.keepPresence(run, time.Hour, 5*time.Millisecond) }()
	defer func() { cancel(); <-done }()

	l.down.Store(true)
	base := l.pings.Load()
	eventually.True(t, 5*time.Second, "a failed ping", func() bool { return l.pings.Load() >= base+2 })
	if err := c.ClearPresence(ctx, "a", []string{"h1"}); err != nil { // the store comes back empty
		t.Fatal(err)
	}
	l.down.Store(false)
	back := time.Now()
	eventually.True(t, 5*time.Second, "presence renewed", func() bool {
		inst, ok, err := c.Presence(ctx, "h1")
		return err == nil && ok && inst == "a"
	})
	if took := time.Since(back); took > time.Second {
		t.Errorf("presence renewed %v after coordination returned", took)
	}
}

// gatedClears holds each ClearPresence until released, and records the
// batches, as a busy coordination store would.
type gatedClears struct {
	coord.Coord
	gate    chan struct{}
	mu      sync.Mutex
	batches [][]string
}

func (g *gatedClears) ClearPresence(ctx context.Context, inst string, ids []string) error {
	g.mu.Lock()
	g.batches = append(g.batches, append([]string(nil), ids...))
	g.mu.Unlock()
	<-g.gate
	return g.Coord.ClearPresence(ctx, inst, ids)
}

func (g *gatedClears) calls() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.batches)
}

// TestDisconnectsWhileAClearRunsGoTogether: a thousand agents lost while
// one clear is under way cost one more round trip, not a thousand, and
// each Unregister returns only once its host's presence is gone.
func TestDisconnectsWhileAClearRunsGoTogether(t *testing.T) {
	c := inproc.New()
	t.Cleanup(func() { c.Close() })
	g := &gatedClears{Coord: c, gate: make(chan struct{})}
	d := New("a", g, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	const n = 1000
	agents := make([]*fakeAgent, n+1)
	for i := range agents {
		agents[i] = &fakeAgent{d: d}
		if err := d.Register(ctx, fmt.Sprint("h", i), agents[i]); err != nil {
			t.Fatal(err)
		}
	}
	first := make(chan struct{})
	go func() { defer close(first); d.Unregister("h0", agents[0]) }()
	eventually.True(t, 5*time.Second, "the first clear under way", func() bool { return g.calls() == 1 })
	var rest sync.WaitGroup
	var returned atomic.Int64
	for i := 1; i <= n; i++ {
		rest.Go(func() { d.Unregister(fmt.Sprint("h", i), agents[i]); returned.Add(1) })
	}
	eventually.Error(t, 5*time.Second, "every other Unregister waiting for the next clear", func() error {
		if w := d.clears.Waiting(); w != n {
			return fmt.Errorf("%d waiting, want %d", w, n)
		}
		return nil
	})
	if got := returned.Load(); got != 0 {
		t.Fatalf("%d Unregisters returned before their clear ran", got)
	}
	close(g.gate)
	<-first
	rest.Wait()
	if got := g.calls(); got != 2 || len(g.batches[1]) != n {
		t.Fatalf("clears: %d calls, want 2 (the first, then the other %d hosts together)", got, n)
	}
	if online, _ := c.CountPresence(ctx); online != 0 {
		t.Fatalf("presence after every disconnect: %d hosts, want 0", online)
	}
}

// TestStoppingWithdrawsPresence: a stopping instance's hosts read offline
// at once, except one whose agent reconnected elsewhere meanwhile.
func TestStoppingWithdrawsPresence(t *testing.T) {
	c := inproc.New()
	t.Cleanup(func() { c.Close() })
	d := New("a", c, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() { done <- d.Run(ctx, ready) }()
	<-ready
	for _, h := range []string{"h1", "h2", "moved"} {
		if err := d.Register(context.Background(), h, &fakeAgent{d: d}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SetPresence(context.Background(), "moved", "b", PresenceTTL); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for h, want := range map[string]string{"h1": "", "h2": "", "moved": "b"} {
		if inst, _, _ := c.Presence(context.Background(), h); inst != want {
			t.Errorf("presence of %s after stopping: %q, want %q", h, inst, want)
		}
	}
}

// authedAgent is a fakeAgent whose credentials were checked at checked.
type authedAgent struct {
	*fakeAgent
	checked time.Time
}

func (a authedAgent) AuthenticatedAt() time.Time { return a.checked }

// TestDropWhileConnectingEndsTheConnection: a host dropped (deleted,
// banned, rotated) after an agent's credentials were checked but before
// its connection registered is refused at registration, on the instance
// that dropped it and on another; a connection checked after the drop
// registers, and a replacement of an older connection is no drop.
func TestDropWhileConnectingEndsTheConnection(t *testing.T) {
	c := inproc.New()
	t.Cleanup(func() { c.Close() })
	a, b := startDispatcher(t, c, "a"), startDispatcher(t, c, "b")
	ctx := context.Background()

	checked := time.Now()
	a.Disconnect(ctx, "h1", "host deleted")
	if err := a.Register(ctx, "h1", authedAgent{&fakeAgent{d: a}, checked}); !errors.Is(err, ErrDropped) {
		t.Fatalf("register on the dropping instance after the drop: %v, want ErrDropped", err)
	}
	eventually.True(t, 5*time.Second, "the drop reached b", func() bool {
		return errors.Is(b.Register(ctx, "h1", authedAgent{&fakeAgent{d: b}, checked}), ErrDropped)
	})
	if err := a.Register(ctx, "h1", authedAgent{&fakeAgent{d: a}, time.Now()}); err != nil {
		t.Fatalf("a connection checked after the drop: %v", err)
	}

	// A new connection replacing an older one leaves no drop behind.
	replacedCheck := time.Now()
	if err := b.Register(ctx, "h2", authedAgent{&fakeAgent{d: b}, replacedCheck}); err != nil {
		t.Fatal(err)
	}
	if err := a.Register(ctx, "h2", authedAgent{&fakeAgent{d: a}, replacedCheck}); err != nil {
		t.Fatalf("a second connection checked before a replacement: %v, want registered", err)
	}
}
