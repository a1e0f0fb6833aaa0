// Package agentgw is the hub side of the agent channel: it upgrades an
// authenticated agent to a WebSocket, checks its hello, hands the
// connection to the dispatcher, answers heartbeats, records metrics and
// events, and admits handshakes at a bounded rate so a reconnect storm
// cannot swamp the hub. For agents of protocol 2 it also carries stream
// frames in binary messages and opens terminals on them (pty.go).
//
// An idle connection costs no goroutine and no buffer: the hub speaks the
// WebSocket protocol itself (ws.go, frames.go); one goroutine waits for
// all sockets to become readable, and a socket's messages are read and
// handled by a goroutine that lives while they wait (conn.go, inbox.go).
// Writers take turns on the session's lock; there is no writer goroutine.
// An idle agent costs the hub about 5 KiB (docs/performance.md).
package agentgw

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/clip"
	"hostgate/internal/dispatch"
	"hostgate/internal/hosts"
	"hostgate/internal/streams"
)

// Close codes the hub sends (4000-4999 are the application's).
const (
	CloseUnsupported = 4001 // protocol too old
	CloseProtocol    = 4002 // broke the protocol
	CloseDropped     = 4003 // credentials rotated, host deleted or banned, or replaced
)

const (
	helloTimeout = 10 * time.Second
	// idleFactor heartbeats may be missed before the hub gives up on a socket.
	idleFactor = 3
)

// Upgrades follows agent upgrades (package upgrades).
type Upgrades interface {
	// Report applies an agent's upgrade progress report.
	Report(ctx context.Context, hostID string, r agentproto.UpgradeReport)
	// ObserveVersion is told the version an agent runs at each handshake.
	ObserveVersion(ctx context.Context, hostID, version string)
}

// Settings keeps agents' L1 settings current (package l1config).
type Settings interface {
	// Reconcile sends the host's settings to its agent when the
	// fingerprint the agent said hello with does not match them.
	Reconcile(ctx context.Context, hostID, fingerprint string)
}

// Jobs is told when an agent connects, so runs queued for its host start
// (package jobs). It must cost nothing when no run waits.
type Jobs interface {
	HostConnected(ctx context.Context, hostID string)
}

// Gateway serves agent WebSockets.
type Gateway struct {
	hosts    *hosts.Service
	upgrades Upgrades
	settings Settings
	live     *hosts.Liveness
	disp     *dispatch.Dispatcher
	log      *slog.Logger
	admit    *Admission
	ctx      context.Context
	work     *workers
	jobs     Jobs
	// sessions are the open sockets, which poll reads (conn.go).
	sessions table
	poll     *poller
}

// New returns a gateway. ctx bounds the work done for connections (store
// writes); cancelling it does not close sockets — the dispatcher does that.
func New(ctx context.Context, h *hosts.Service, up Upgrades, set Settings, live *hosts.Liveness, d *dispatch.Dispatcher, admit *Admission, log *slog.Logger) *Gateway {
	g := &Gateway{hosts: h, upgrades: up, settings: set, live: live, disp: d, log: log, admit: admit, ctx: ctx, work: newWorkers(ctx)}
	g.poll = newPoller(ctx, &g.sessions)
	return g
}

// SetJobs sets who hears of agents connecting; call it before serving.
func (g *Gateway) SetJobs(j Jobs) { g.jobs = j }

// Admit reports whether a handshake may proceed now; when it may not, the
// caller answers 503 with Retry-After. done must be called after the upgrade.
func (g *Gateway) Admit() (done func(), retryAfter time.Duration, ok bool) {
	return g.admit.Acquire()
}

// Upgrade turns an authenticated request into an agent session.
func (g *Gateway) Upgrade(w http.ResponseWriter, r *http.Request, a hosts.Agent, publicIP string) {
	raw, early, err := upgrade(w, r)
	if err != nil {
		g.log.InfoContext(r.Context(), "agent upgrade failed", "host_id", a.Host.ID, "err", err)
		return
	}
	s := &session{g: g, hostID: a.Host.ID, ip: publicIP, raw: raw, checkedAt: a.CheckedAt,
		recorded:       hosts.HandshakeDigest(a.Host.PublicIP, a.Host.OS, a.Host.InstalledVersion),
		recordedOnline: a.Host.Status == hosts.StatusOnline}
	s.fr.max = agentproto.MaxMessage
	s.start(early)
}

// session is one agent connection; it is the dispatcher's Conn and, for
// an agent that speaks streams, its Mux's Transport.
type session struct {
	g      *Gateway
	hostID string
	// checkedAt is when the agent's credentials were checked
	// (hosts.Agent.CheckedAt); dispatch.Register compares it with drops.
	checkedAt time.Time
	ip        string
	raw       net.Conn // the hijacked connection (ws.go)
	closeSent atomic.Bool
	welcomed  atomic.Bool
	closing   atomic.Bool
	// Reading (conn.go). slot is the session's place in the table of
	// open sessions; deadline (Unix nanoseconds) is when a silent socket
	// is closed. started is set once reading has begun, gone once the
	// socket has closed; cause is why it ended, when the hub knows.
	slot     int32
	started  atomic.Bool
	gone     atomic.Bool
	deadline atomic.Int64
	cause    atomic.Pointer[error]
	// fr and readDone belong to the inbox: the frames read so far, and
	// whether reading has stopped.
	fr       frameReader
	readDone bool
	// streams is set, before the session is registered, for an agent of
	// protocol ≥ 2. Its mux is made on first use (most agents never carry
	// a terminal, and an idle agent's memory is what bounds a hub), and
	// closed when the socket closes.
	streams bool
	muxMu   sync.Mutex
	mux     *streams.Mux
	ended   bool
	// in reads the socket and runs the session's messages and its close,
	// in order (conn.go).
	in inbox
	// recorded digests the address, OS and version the store holds for
	// the host (hosts.HandshakeDigest), and recordedOnline says whether
	// its stored status is online: when both still hold at the hello, the
	// handshake writes nothing.
	recorded       uint64
	recordedOnline bool
	// lastSent is when the hub last wrote to the agent (Unix nanoseconds),
	// which decides whether a heartbeat needs an answer (ackDue).
	lastSent atomic.Int64
	// writeMu orders writes, so that each runs under its own deadline.
	writeMu sync.Mutex
	// writeGrace replaces the constant in tests.
	writeGrace time.Duration
}

// Writes to an agent have a deadline, so that an agent that stopped
// reading (a hung host, a link that drops packets without a reset) cannot
// hold a command's caller, and every other writer of the session, for
// ever: writeGrace, plus the message's size at minWriteRate (a 4 MiB file
// upload gets 74 s). A write that misses it fails and closes the socket
// (a frame may be half written), and the agent reconnects.
const (
	writeGrace   = 10 * time.Second
	minWriteRate = 64 << 10 // bytes per second
)

// writeTimeout is the deadline of a write of size bytes, after grace.
func writeTimeout(grace time.Duration, size int) time.Duration {
	return grace + time.Duration(size)*time.Second/minWriteRate
}

// write sends one message under its deadline. A write that fails, but
// for one refused before a byte went out, closes the socket.
func (s *session) write(write func() error, size int) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	now := time.Now()
	s.lastSent.Store(now.UnixNano())
	if err := s.raw.SetWriteDeadline(now.Add(writeTimeout(cmp.Or(s.writeGrace, writeGrace), size))); err != nil {
		return err
	}
	err := write()
	if err != nil && !errors.Is(err, errNotUTF8) && !errors.Is(err, errClosed) {
		s.cause.CompareAndSwap(nil, &err)
		s.closeSent.Store(true)
		_ = s.raw.Close()
		s.socketClosed()
	}
	return err
}

// ackQuiet is how long the hub may have sent an agent nothing before a
// heartbeat without an id is answered. The agent gives up on a hub it has
// not heard from for three heartbeat intervals (75 s); answering every
// other heartbeat (at most 50 s apart) is enough, and halves the writes of
// an idle fleet, whose heartbeat answers were a sixth of its CPU
// (docs/performance.md).
const ackQuiet = hosts.HeartbeatInterval * 8 / 5

// ackDue says whether a heartbeat needs heartbeat_ack: always when it
// carries an id (its sender waits for that answer), otherwise when the hub
// has written nothing to the agent for ackQuiet.
func (s *session) ackDue(id string, now time.Time) bool {
	return id != "" || now.UnixNano()-s.lastSent.Load() >= int64(ackQuiet)
}

// streamMux returns the session's mux, making it on first use; nil when
// the agent does not speak streams or the connection has ended.
func (s *session) streamMux() *streams.Mux {
	if !s.streams {
		return nil
	}
	s.muxMu.Lock()
	defer s.muxMu.Unlock()
	if s.mux == nil && !s.ended {
		// The hub opens streams and accepts none.
		s.mux = streams.New(s, streams.Config{Role: streams.RoleHub, AcceptBacklog: -1})
	}
	return s.mux
}

// closeMux ends every stream of the session, once its socket is gone.
func (s *session) closeMux() {
	s.muxMu.Lock()
	defer s.muxMu.Unlock()
	s.ended = true
	if s.mux != nil {
		_ = s.mux.Close()
	}
}

// AuthenticatedAt implements dispatch.Authenticated.
func (s *session) AuthenticatedAt() time.Time { return s.checkedAt }

func (s *session) WriteMessage(msg []byte) error {
	return s.write(func() error { return s.writeFrame(opText, msg) }, len(msg))
}

// WriteBinary implements streams.Transport.
func (s *session) WriteBinary(msg []byte) error {
	return s.write(func() error { return s.writeFrame(opBinary, msg) }, len(msg))
}

// Close sends the agent a close frame with reason and ends the socket. It
// does not wait: a write under way may take until its deadline.
func (s *session) Close(reason string) {
	if s.closing.CompareAndSwap(false, true) {
		go s.closeWith(CloseDropped, reason)
	}
}

func (s *session) closeWith(code uint16, reason string) {
	err := errors.New("closed by the hub: " + reason)
	s.cause.CompareAndSwap(nil, &err)
	_ = s.write(func() error { return s.writeClose(code, reason) }, len(reason))
}

func (s *session) send(typ, id string, body any) {
	msg, err := agentproto.Encode(typ, id, body)
	if err == nil {
		err = s.WriteMessage(msg)
	}
	if err != nil {
		s.g.log.Debug("agent write failed", "host_id", s.hostID, "err", err)
	}
}

func (s *session) fail(code uint16, e agentproto.Error) {
	s.send(agentproto.TypeError, "", e)
	s.closeWith(code, e.Message)
}

type handler struct{ g *Gateway }

// closed ends a session whose socket has gone.
func (h handler) closed(s *session, err error) {
	s.closeMux()
	if !s.welcomed.Load() {
		return
	}
	reason := closeReason(err)
	h.g.disp.Unregister(s.hostID, s)
	h.g.work.do(s.hostID, func() { h.g.hosts.RecordEvent(h.g.ctx, s.hostID, hosts.EventDisconnected, reason) })
}

func closeReason(err error) string {
	if err == nil {
		return "closed"
	}
	return err.Error()
}

// message handles one message, on the session's inbox.
func (h handler) message(s *session, op byte, payload []byte) {
	if op == opBinary {
		h.binary(s, payload)
		return
	}
	e, err := agentproto.Decode(payload)
	if err != nil {
		s.fail(CloseProtocol, agentproto.Error{Code: "malformed", Message: "message is not a valid envelope"})
		return
	}
	if !s.welcomed.Load() {
		h.hello(s, e)
		return
	}
	s.touch()
	h.g.live.Seen(s.hostID)
	h.serve(s, e)
}

// binary hands a stream frame to the session's mux. A binary message from
// an agent that did not negotiate streams, or a malformed frame, breaks
// the protocol.
func (h handler) binary(s *session, msg []byte) {
	mux := s.streamMux()
	if mux == nil {
		s.fail(CloseProtocol, agentproto.Error{Code: "malformed", Message: "binary message without streams"})
		return
	}
	if err := mux.Deliver(msg); err != nil {
		s.fail(CloseProtocol, agentproto.Error{Code: "malformed", Message: "malformed stream frame"})
		return
	}
	s.touch()
}

func (h handler) hello(s *session, e agentproto.Envelope) {
	var hello agentproto.Hello
	if e.Type != agentproto.TypeHello || agentproto.DecodeBody(e, &hello) != nil {
		s.fail(CloseProtocol, agentproto.Error{Code: "hello_expected", Message: "the first message must be hello"})
		return
	}
	if hello.Protocol < agentproto.MinSupported {
		s.fail(CloseUnsupported, agentproto.Error{Code: agentproto.CodeUnsupportedProt,
			Message: "agent protocol is too old; upgrade the agent"})
		return
	}
	s.streams = agentproto.HasStreams(hello.Protocol)
	h.recordHandshake(s, hello)
	// The welcome goes out before the session is registered: once
	// registered, commands may be written to it at any moment, and an
	// agent ignores everything that comes before its welcome.
	s.welcomed.Store(true)
	s.send(agentproto.TypeWelcome, "", agentproto.Welcome{
		Protocol: agentproto.Version, HostID: s.hostID,
		HeartbeatS: int(hosts.HeartbeatInterval / time.Second), MetricsS: int(hosts.MetricsInterval / time.Second),
		ServerTime: time.Now().UnixMilli(),
	})
	s.touch()
	// Commands may reach the agent as soon as the dispatcher knows it, so
	// that comes first, here on the session's inbox (the socket's close is
	// handled after it, on the same inbox); the store writes follow on the
	// host's worker, where a busy database delays only them.
	if err := h.g.disp.Register(h.g.ctx, s.hostID, s); errors.Is(err, dispatch.ErrDropped) {
		s.fail(CloseDropped, agentproto.Error{Code: "dropped", Message: "the host was changed while the agent connected; reconnect"})
		return
	} else if err != nil {
		h.g.log.WarnContext(h.g.ctx, "register agent failed", "host_id", s.hostID, "err", err)
		s.fail(CloseDropped, agentproto.Error{Code: "unavailable", Message: "hub cannot register the agent now"})
		return
	}
	h.g.live.Seen(s.hostID)
	h.g.work.do(s.hostID, func() { h.registered(s, hello) })
}

// recordHandshake writes what the agent reported and turns the host
// online in the store, before the welcome and before the session is
// registered: no reader sees the host connected while its stored status
// still says pending or offline (docs/hosts.md). It writes only when the
// store differs: a fleet reconnecting to a restarted hub within the
// offline delay costs no writes. A failed write is logged and the agent
// served anyway; the next liveness flush sets the status.
func (h handler) recordHandshake(s *session, hello agentproto.Hello) {
	if s.recordedOnline && hosts.HandshakeDigest(s.ip, hello.OS, hello.AgentVersion) == s.recorded {
		return
	}
	ctx, cancel := context.WithTimeout(h.g.ctx, handshakeWriteTimeout)
	defer cancel()
	if err := h.g.hosts.RecordHandshake(ctx, s.hostID, s.ip, hello.OS, hello.AgentVersion); err != nil {
		h.g.log.WarnContext(ctx, "record handshake failed", "host_id", s.hostID, "err", err)
	}
}

// handshakeWriteTimeout bounds how long a sick database holds an agent's
// welcome.
const handshakeWriteTimeout = 5 * time.Second

// registered records a welcomed and registered session in the host's
// record and history, and against upgrades and settings in flight. It runs
// on the host's worker.
func (h handler) registered(s *session, hello agentproto.Hello) {
	ctx := h.g.ctx
	h.g.hosts.RecordEvent(ctx, s.hostID, hosts.EventConnected, "agent "+hello.AgentVersion+" from "+s.ip)
	h.g.upgrades.ObserveVersion(ctx, s.hostID, hello.AgentVersion)
	h.g.settings.Reconcile(ctx, s.hostID, hello.SettingsFP)
	if h.g.jobs != nil {
		h.g.jobs.HostConnected(ctx, s.hostID)
	}
}

func (h handler) serve(s *session, e agentproto.Envelope) {
	ctx := h.g.ctx
	switch e.Type {
	case agentproto.TypeCmdResp:
		var r agentproto.Response
		if agentproto.DecodeBody(e, &r) == nil {
			h.g.disp.Deliver(e.ID, r)
		}
	case agentproto.TypeHeartbeat:
		if s.ackDue(e.ID, time.Now()) {
			s.send(agentproto.TypeHeartbeatAck, e.ID, nil)
		}
	case agentproto.TypeMetrics:
		var m agentproto.Metrics
		if agentproto.DecodeBody(e, &m) == nil {
			h.g.hosts.RecordMetrics(s.hostID, m) // written in batches
		}
	case agentproto.TypeEvent:
		var ev agentproto.Event
		if agentproto.DecodeBody(e, &ev) == nil {
			h.g.work.do(s.hostID, func() { h.g.hosts.RecordEvent(ctx, s.hostID, "agent."+clip.String(ev.Kind, 32), ev.Message) })
		}
	case agentproto.TypeUpgrade:
		var r agentproto.UpgradeReport
		if agentproto.DecodeBody(e, &r) == nil {
			h.g.work.do(s.hostID, func() { h.g.upgrades.Report(ctx, s.hostID, r) })
		}
	default:
		s.send(agentproto.TypeError, e.ID, agentproto.Error{Code: "unknown_type", Message: "unknown message type"})
	}
}
