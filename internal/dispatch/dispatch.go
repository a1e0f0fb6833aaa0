// Package dispatch sends commands to agents and waits for their answers,
// wherever the agent is connected. Each hub instance holds its own agents'
// connections; coordination records which instance holds which host
// (presence) and carries commands and replies between instances, so a
// command arriving at any instance reaches any agent.
package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/coord"
)

// Error codes (spec section 7).
const (
	CodeHostOffline  = "host_offline"
	CodeAgentTimeout = "agent_timeout"
	// CodeAgentDisconnected: the agent's connection closed while a
	// command was out, so it may or may not have run; never retried.
	CodeAgentDisconnected = "agent_disconnected"
)

// Presence timing: the holder renews every PresenceRefresh; a crashed
// instance's hosts read as offline after at most PresenceTTL.
const (
	PresenceTTL     = 60 * time.Second
	PresenceRefresh = 20 * time.Second
	// routeMargin is extra time a caller waits for a routed reply beyond
	// the command's own deadline, for the hop through coordination.
	routeMargin = 2 * time.Second
)

// Conn is one agent's connection as the dispatcher uses it. WriteMessage
// must be safe for concurrent use.
type Conn interface {
	WriteMessage(msg []byte) error
	Close(reason string)
}

// Authenticated is a Conn that knows when its credentials were checked.
// Register refuses it (ErrDropped) when its host was dropped (Disconnect:
// deleted, banned, its secret rotated) at or after that moment, on this
// instance or any other: the check passed before the change committed, and
// the drop came before the connection was there to close.
type Authenticated interface {
	AuthenticatedAt() time.Time
}

// ErrDropped: the connection's host was dropped after its credentials
// were checked; close it.
var ErrDropped = errors.New("dispatch: the host was dropped while the agent connected")

// dropMemory is how long a drop is remembered against connections still
// registering: far longer than a handshake takes.
const dropMemory = 2 * time.Minute

// replacedReason is the drop a new connection sends its host's older ones;
// it is not remembered (the newer connection is the one that registers).
const replacedReason = "replaced by a new connection"

// Observer learns how each command sent through Send ended: the outcome
// is "ok", "agent_error" (the agent answered with an error), an error
// code (host_offline, agent_timeout) or "error". The hub's metrics
// implement it.
type Observer interface {
	CommandDone(op, outcome string, took time.Duration)
}

// Dispatcher routes commands. Create it with New and run it with Run.
type Dispatcher struct {
	instance string
	coord    Coordination
	log      *slog.Logger
	obs      Observer
	clears   *presenceClears

	mu      sync.Mutex
	conns   map[string]held                     // host id → connection
	waiters map[string]chan agentproto.Response // command id → local waiter
	routed  map[string]chan routed              // request id → remote waiter
	// inflight is, per connection, the commands written to it and not yet
	// answered: each closes its channel when the connection goes.
	inflight map[Conn]map[string]chan struct{}
	// drops is, per host, its latest drop within dropMemory (Authenticated).
	drops map[string]time.Time
}

// held is a connection and when it registered; a drop names a time and
// closes only connections older than it, so a late drop never kills the
// newer connection it made way for.
type held struct {
	conn Conn
	at   time.Time
}

// Coordination is what the dispatcher uses of coordination
// (coord.Coord): the agents' presence and the instances' channels.
type Coordination interface {
	SetPresence(ctx context.Context, hostID, instanceID string, ttl time.Duration) error
	RefreshPresence(ctx context.Context, instanceID string, hostIDs []string, ttl time.Duration) error
	Presence(ctx context.Context, hostID string) (instanceID string, ok bool, err error)
	PresenceMany(ctx context.Context, hostIDs []string) (map[string]string, error)
	ClearPresence(ctx context.Context, instanceID string, hostIDs []string) error
	CountPresence(ctx context.Context) (int64, error)
	Publish(ctx context.Context, channel string, msg []byte) error
	Subscribe(ctx context.Context, channel string) (coord.Subscription, error)
	// Ping checks the coordination store; keepPresence uses it to notice
	// the store coming back after an outage.
	Ping(ctx context.Context) error
}

// New returns a dispatcher for this hub instance.
func New(instance string, c Coordination, log *slog.Logger) *Dispatcher {
	return &Dispatcher{
		instance: instance, coord: c, log: log,
		clears:  newPresenceClears(c, instance, log),
		conns:   map[string]held{},
		waiters: map[string]chan agentproto.Response{},
		routed:  map[string]chan routed{},

		inflight: map[Conn]map[string]chan struct{}{},
	}
}

// Instance is this hub instance's id.
func (d *Dispatcher) Instance() string { return d.instance }

// Observe sets the observer of commands; call it before any Send.
func (d *Dispatcher) Observe(o Observer) { d.obs = o }

func channelOf(instance string) string { return "dispatch:inst:" + instance }

const broadcast = "dispatch:all"

// routed is a message between instances.
type routed struct {
	Kind    string              `json:"kind"` // "cmd", "reply" or "drop"
	ReqID   string              `json:"req_id,omitempty"`
	ReplyTo string              `json:"reply_to,omitempty"`
	HostID  string              `json:"host_id"`
	Op      string              `json:"op,omitempty"`
	Args    json.RawMessage     `json:"args,omitempty"`
	Timeout time.Duration       `json:"timeout,omitempty"`
	Resp    agentproto.Response `json:"resp,omitzero"`
	Code    string              `json:"code,omitempty"` // error code when the route failed
	Reason  string              `json:"reason,omitempty"`
	Before  time.Time           `json:"before,omitzero"` // drop: connections registered before this
}

// Run subscribes to this instance's channel and the broadcast channel and
// serves them, and renews presence, until ctx ends. ready is closed once the
// subscriptions are in place.
func (d *Dispatcher) Run(ctx context.Context, ready chan<- struct{}) error {
	own, err := d.coord.Subscribe(ctx, channelOf(d.instance))
	if err != nil {
		return err
	}
	defer own.Close()
	all, err := d.coord.Subscribe(ctx, broadcast)
	if err != nil {
		return err
	}
	defer all.Close()
	var presence sync.WaitGroup
	defer presence.Wait()
	pctx, stop := context.WithCancel(ctx)
	defer stop() // before the Wait above
	presence.Go(func() { d.keepPresence(pctx, PresenceRefresh, presenceRetry) })
	close(ready)
	for {
		select {
		case <-ctx.Done():
			d.closeAll("hub shutting down")
			return nil
		case msg, ok := <-own.C():
			if !ok {
				// Only closing the coordinator closes a subscription.
				d.closeAll("hub shutting down")
				return nil
			}
			d.handleRouted(ctx, msg)
		case msg, ok := <-all.C():
			if !ok {
				// Only closing the coordinator closes a subscription.
				d.closeAll("hub shutting down")
				return nil
			}
			d.handleRouted(ctx, msg)
		}
	}
}

// presenceRetry is how soon a failed presence renewal is tried again.
const presenceRetry = 2 * time.Second

// keepPresence renews the presence of this instance's hosts every
// interval, and retry after a failure, until ctx ends. Between renewals it
// pings coordination every retry, and renews at once when coordination
// answers again after a failed ping or renewal: a Redis that restarted
// empty has lost every presence key, and waiting out the interval would
// leave this instance's hosts offline to the other instances for up to
// PresenceRefresh. It runs apart from the routing loop: a renewal that
// waits for a slow coordination store must not hold up routed commands.
func (d *Dispatcher) keepPresence(ctx context.Context, every, retry time.Duration) {
	t := time.NewTimer(min(every, retry))
	defer t.Stop()
	next := time.Now().Add(every)
	lost := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		due := !time.Now().Before(next)
		if !due {
			if err := d.coord.Ping(ctx); err != nil {
				if !lost && ctx.Err() == nil {
					d.log.WarnContext(ctx, "coordination unreachable: presence is renewed as soon as it answers", "err", err)
				}
				lost = true
			} else if lost {
				due = true
			}
		}
		if due {
			if d.refreshPresence(ctx) {
				if lost {
					d.log.InfoContext(ctx, "coordination answers again: presence renewed")
				}
				lost, next = false, time.Now().Add(every)
			} else {
				lost, next = true, time.Now().Add(retry)
			}
		}
		t.Reset(min(time.Until(next), retry))
	}
}

// refreshPresence renews every local host's presence once; false when it
// failed.
func (d *Dispatcher) refreshPresence(ctx context.Context) bool {
	d.mu.Lock()
	ids := make([]string, 0, len(d.conns))
	for id := range d.conns {
		ids = append(ids, id)
	}
	d.mu.Unlock()
	if len(ids) == 0 {
		return true
	}
	if err := d.coord.RefreshPresence(ctx, d.instance, ids, PresenceTTL); err != nil {
		if ctx.Err() == nil {
			d.log.WarnContext(ctx, "presence refresh failed", "hosts", len(ids), "err", err)
		}
		return false
	}
	return true
}

// closeAll closes every connection and withdraws their presence, so that
// the hosts read offline at once rather than when it expires; an agent
// that reconnected elsewhere meanwhile is held there, not here, and keeps
// its presence.
func (d *Dispatcher) closeAll(reason string) {
	d.mu.Lock()
	conns := d.conns
	d.conns = map[string]held{}
	d.mu.Unlock()
	ids := make([]string, 0, len(conns))
	for id, c := range conns {
		c.conn.Close(reason)
		ids = append(ids, id)
	}
	if len(ids) > 0 {
		_, _ = d.clears.Do(ids)
	}
}

// Register makes c the connection of hostID on this instance, replacing
// and closing an earlier one, and publishes presence.
func (d *Dispatcher) Register(ctx context.Context, hostID string, c Conn) error {
	now := time.Now()
	d.mu.Lock()
	if a, ok := c.(Authenticated); ok {
		if at, dropped := d.drops[hostID]; dropped && !at.Before(a.AuthenticatedAt()) {
			d.mu.Unlock()
			return ErrDropped
		}
	}
	old, had := d.conns[hostID]
	d.conns[hostID] = held{conn: c, at: now}
	d.mu.Unlock()
	if had {
		old.conn.Close(replacedReason)
	}
	if err := d.coord.SetPresence(ctx, hostID, d.instance, PresenceTTL); err != nil {
		return err
	}
	// Another instance may hold an older connection of this host.
	d.publishDrop(ctx, hostID, replacedReason, now)
	return nil
}

// Unregister forgets c if it is still hostID's connection here, and
// returns once its presence is withdrawn (or that failed, which is logged).
// Commands still out on c end at once with agent_disconnected.
func (d *Dispatcher) Unregister(hostID string, c Conn) {
	d.mu.Lock()
	cur, ok := d.conns[hostID]
	mine := ok && cur.conn == c
	if mine {
		delete(d.conns, hostID)
	}
	for _, lost := range d.inflight[c] {
		close(lost)
	}
	delete(d.inflight, c)
	d.mu.Unlock()
	if mine {
		_, _ = d.clears.Do([]string{hostID})
	}
}

// LocalCount is how many agents this instance holds.
func (d *Dispatcher) LocalCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.conns)
}

// Online reports whether hostID's agent is connected to any instance.
func (d *Dispatcher) Online(ctx context.Context, hostID string) (bool, error) {
	if d.local(hostID) != nil {
		return true, nil
	}
	_, ok, err := d.coord.Presence(ctx, hostID)
	return ok, err
}

// OnlineMany reports which of hostIDs have their agent connected to any
// instance: the ones held here, then one coordination read for the rest.
func (d *Dispatcher) OnlineMany(ctx context.Context, hostIDs []string) (map[string]bool, error) {
	on := make(map[string]bool, len(hostIDs))
	rest := make([]string, 0, len(hostIDs))
	d.mu.Lock()
	for _, h := range hostIDs {
		if d.conns[h].conn != nil {
			on[h] = true
		} else {
			rest = append(rest, h)
		}
	}
	d.mu.Unlock()
	if len(rest) == 0 {
		return on, nil
	}
	held, err := d.coord.PresenceMany(ctx, rest)
	if err != nil {
		return nil, err
	}
	for h := range held {
		on[h] = true
	}
	return on, nil
}

// CountOnline counts connected agents cluster-wide.
func (d *Dispatcher) CountOnline(ctx context.Context) (int64, error) {
	return d.coord.CountPresence(ctx)
}

// Local returns hostID's connection if this instance holds it, else nil.
// The agent gateway uses it to open streams on the connection.
func (d *Dispatcher) Local(hostID string) Conn { return d.local(hostID) }

func (d *Dispatcher) local(hostID string) Conn {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.conns[hostID].conn
}

// Disconnect drops hostID's connection wherever it is held.
func (d *Dispatcher) Disconnect(ctx context.Context, hostID, reason string) {
	now := time.Now()
	d.dropLocal(hostID, reason, now)
	d.publishDrop(ctx, hostID, reason, now)
}

// dropLocal closes hostID's connection here if it registered before
// before, and withdraws its presence.
func (d *Dispatcher) dropLocal(hostID, reason string, before time.Time) {
	d.mu.Lock()
	if reason != replacedReason {
		d.rememberDrop(hostID, before)
	}
	c, ok := d.conns[hostID]
	if ok && c.at.Before(before) {
		delete(d.conns, hostID)
	} else {
		ok = false
	}
	d.mu.Unlock()
	if !ok {
		return
	}
	_, _ = d.clears.Do([]string{hostID})
	c.conn.Close(reason)
}

// rememberDrop records hostID's drop at, and forgets drops older than
// dropMemory once there are many; d.mu is held.
func (d *Dispatcher) rememberDrop(hostID string, at time.Time) {
	if d.drops == nil {
		d.drops = map[string]time.Time{}
	}
	if prev, ok := d.drops[hostID]; !ok || at.After(prev) {
		d.drops[hostID] = at
	}
	if len(d.drops) > 1024 {
		for id, t := range d.drops {
			if time.Since(t) > dropMemory {
				delete(d.drops, id)
			}
		}
	}
}

// publishDrop tells every instance to drop connections of hostID that
// registered before before.
func (d *Dispatcher) publishDrop(ctx context.Context, hostID, reason string, before time.Time) {
	m := routed{Kind: "drop", HostID: hostID, Reason: reason, Before: before}
	b, _ := json.Marshal(m)
	if err := d.coord.Publish(ctx, broadcast, b); err != nil {
		d.log.WarnContext(ctx, "drop broadcast failed", "host_id", hostID, "err", err)
	}
}

// Deliver hands an agent's cmd_resp to the waiting caller, if any.
func (d *Dispatcher) Deliver(cmdID string, resp agentproto.Response) {
	d.mu.Lock()
	w := d.waiters[cmdID]
	delete(d.waiters, cmdID)
	d.mu.Unlock()
	if w != nil {
		w <- resp
	}
}

// Send carries out op on hostID's agent and returns its answer: 409
// host_offline when no instance holds the agent, 504 agent_timeout when no
// answer comes within timeout.
func (d *Dispatcher) Send(ctx context.Context, hostID, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error) {
	if d.obs == nil {
		return d.send(ctx, hostID, op, args, timeout)
	}
	start := time.Now()
	resp, err := d.send(ctx, hostID, op, args, timeout)
	outcome := "ok"
	switch {
	case err != nil:
		outcome = apperr.Code(err)
		if outcome == apperr.CodeInternal {
			outcome = "error"
		}
	case !resp.OK || resp.Error != nil:
		outcome = "agent_error"
	}
	d.obs.CommandDone(op, outcome, time.Since(start))
	return resp, err
}

func (d *Dispatcher) send(ctx context.Context, hostID, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error) {
	if c := d.local(hostID); c != nil {
		return d.sendLocal(ctx, c, op, args, timeout)
	}
	owner, ok, err := d.coord.Presence(ctx, hostID)
	if err != nil {
		return agentproto.Response{}, err
	}
	if !ok || owner == d.instance {
		return agentproto.Response{}, offline()
	}
	return d.sendRemote(ctx, owner, hostID, op, args, timeout)
}

func offline() error {
	return apperr.New(CodeHostOffline, "the host's agent is not connected")
}

func timedOut() error {
	return apperr.New(CodeAgentTimeout, "the agent did not answer in time")
}

func disconnected() error {
	return apperr.New(CodeAgentDisconnected, "the agent's connection closed before it answered; the command may or may not have run")
}

// SendVia carries out op over c, a connection this instance holds, like
// Send does for a local agent. It is for commands bound to one connection,
// such as a resize of a stream on it: should the agent reconnect, the
// command fails rather than reach the new connection.
func (d *Dispatcher) SendVia(ctx context.Context, c Conn, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error) {
	return d.sendLocal(ctx, c, op, args, timeout)
}

func (d *Dispatcher) sendLocal(ctx context.Context, c Conn, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error) {
	id := uuid.NewString()
	deadline := time.Now().Add(timeout)
	msg, err := agentproto.Encode(agentproto.TypeCmd, id, agentproto.Command{Op: op, DeadlineMs: deadline.UnixMilli(), Args: args})
	if err != nil {
		return agentproto.Response{}, err
	}
	w := make(chan agentproto.Response, 1)
	lost := make(chan struct{})
	d.mu.Lock()
	d.waiters[id] = w
	out := d.inflight[c]
	if out == nil {
		out = map[string]chan struct{}{}
		d.inflight[c] = out
	}
	out[id] = lost
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.waiters, id)
		if out := d.inflight[c]; out != nil {
			delete(out, id)
			if len(out) == 0 {
				delete(d.inflight, c)
			}
		}
		d.mu.Unlock()
	}()
	if err := c.WriteMessage(msg); err != nil {
		return agentproto.Response{}, offline()
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-w:
		return r, nil
	case <-lost:
		select { // an answer that came with the close still counts
		case r := <-w:
			return r, nil
		default:
			return agentproto.Response{}, disconnected()
		}
	case <-t.C:
		return agentproto.Response{}, timedOut()
	case <-ctx.Done():
		return agentproto.Response{}, ctx.Err()
	}
}

func (d *Dispatcher) sendRemote(ctx context.Context, owner, hostID, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error) {
	req := routed{Kind: "cmd", ReqID: uuid.NewString(), ReplyTo: d.instance, HostID: hostID, Op: op, Args: args, Timeout: timeout}
	w := make(chan routed, 1)
	d.mu.Lock()
	d.routed[req.ReqID] = w
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.routed, req.ReqID)
		d.mu.Unlock()
	}()
	b, _ := json.Marshal(req)
	if err := d.coord.Publish(ctx, channelOf(owner), b); err != nil {
		return agentproto.Response{}, err
	}
	t := time.NewTimer(timeout + routeMargin)
	defer t.Stop()
	select {
	case r := <-w:
		switch r.Code {
		case "":
			return r.Resp, nil
		case CodeHostOffline:
			return agentproto.Response{}, offline()
		case CodeAgentDisconnected:
			return agentproto.Response{}, disconnected()
		default:
			return agentproto.Response{}, timedOut()
		}
	case <-t.C:
		return agentproto.Response{}, timedOut()
	case <-ctx.Done():
		return agentproto.Response{}, ctx.Err()
	}
}

func (d *Dispatcher) handleRouted(ctx context.Context, msg []byte) {
	var m routed
	if err := json.Unmarshal(msg, &m); err != nil {
		d.log.WarnContext(ctx, "malformed routed message", "err", err)
		return
	}
	switch m.Kind {
	case "drop":
		d.dropLocal(m.HostID, m.Reason, m.Before)
	case "reply":
		d.mu.Lock()
		w := d.routed[m.ReqID]
		d.mu.Unlock()
		if w != nil {
			select {
			case w <- m:
			default:
			}
		}
	case "cmd":
		go d.serveRouted(ctx, m)
	}
}

// serveRouted runs a command another instance forwarded and sends back the
// answer on the caller's channel.
func (d *Dispatcher) serveRouted(ctx context.Context, m routed) {
	reply := routed{Kind: "reply", ReqID: m.ReqID, HostID: m.HostID}
	c := d.local(m.HostID)
	if c == nil {
		reply.Code = CodeHostOffline
	} else {
		resp, err := d.sendLocal(ctx, c, m.Op, m.Args, m.Timeout)
		switch {
		case err == nil:
			reply.Resp = resp
		case errors.Is(err, context.Canceled):
			return
		default:
			reply.Code = apperr.Code(err)
		}
	}
	b, _ := json.Marshal(reply)
	if err := d.coord.Publish(ctx, channelOf(m.ReplyTo), b); err != nil {
		d.log.WarnContext(ctx, "routed reply failed", "err", err)
	}
}
