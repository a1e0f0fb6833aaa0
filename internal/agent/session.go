package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/agentproto"
	"hostgate/internal/streams"
)

// idleFactor heartbeat intervals of silence from the hub end a session.
const idleFactor = 3

// closeProtocolError is the WebSocket close code for a broken protocol.
const closeProtocolError = 1002

// maxStreams caps the streams open at once on one connection (the
// default of package streams).
const maxStreams = 128

// writeTimeout bounds one WebSocket write.
const writeTimeout = 10 * time.Second

// Errors that end a session.
var (
	errHubSilent      = errors.New("no message from the hub for three heartbeat intervals")
	errWelcomeTimeout = errors.New("no welcome from the hub in time")
	errClosed         = errors.New("connection closed")
)

// session is one WebSocket connection to the hub.
type session struct {
	a    *Agent
	ctx  context.Context // the agent's run context; bounds command handlers
	conn *gws.Conn

	wmu sync.Mutex // one writer at a time, each with its own deadline

	lastSeen atomic.Int64 // unix nanoseconds of the last frame from the hub
	welcomed atomic.Bool
	welcome  chan welcomeResult // hello's answer, buffered 1

	done     chan struct{} // closed when the read loop ends
	closeErr error         // why; written before done is closed

	// mux carries the streams of a hub that speaks them (protocol ≥ 2);
	// it is set on the read loop at welcome and closed when the loop ends.
	mux   atomic.Pointer[streams.Mux]
	terms terminals // the terminals on mux's streams
	work  sync.WaitGroup
}

type welcomeResult struct {
	w   agentproto.Welcome
	err error
}

func newSession(ctx context.Context, a *Agent) *session {
	s := &session{a: a, ctx: ctx, welcome: make(chan welcomeResult, 1), done: make(chan struct{})}
	s.touch()
	return s
}

func (s *session) touch() { s.lastSeen.Store(time.Now().UnixNano()) }

func (s *session) silentFor() time.Duration {
	return time.Since(time.Unix(0, s.lastSeen.Load()))
}

// send writes one envelope.
func (s *session) send(typ, id string, body any) error {
	msg, err := agentproto.Encode(typ, id, body)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = s.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	if err := s.conn.WriteMessage(gws.OpcodeText, msg); err != nil {
		return fmt.Errorf("write %s: %w", typ, err)
	}
	return nil
}

// WriteBinary implements streams.Transport: one binary message, on the
// same serialized write path as the envelopes.
func (s *session) WriteBinary(msg []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = s.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	return s.conn.WriteMessage(gws.OpcodeBinary, msg)
}

// close sends a close frame (which also closes the TCP connection).
func (s *session) close(code uint16, reason string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = s.conn.SetWriteDeadline(time.Now().Add(time.Second))
	_ = s.conn.WriteClose(code, []byte(reason))
}

// OnOpen implements gws.Event.
func (s *session) OnOpen(*gws.Conn) {}

// OnClose implements gws.Event: the read loop is over.
func (s *session) OnClose(_ *gws.Conn, err error) {
	if err == nil || err.Error() == "" {
		err = errClosed
	}
	s.closeErr = err
	if m := s.mux.Load(); m != nil {
		_ = m.Close()
	}
	close(s.done)
}

// OnPing implements gws.Event.
func (s *session) OnPing(c *gws.Conn, payload []byte) {
	s.touch()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_ = c.SetWriteDeadline(time.Now().Add(writeTimeout))
	_ = c.WritePong(payload)
}

// OnPong implements gws.Event.
func (s *session) OnPong(*gws.Conn, []byte) { s.touch() }

// OnMessage implements gws.Event. It runs on the read loop; commands are
// handed to their own goroutines.
func (s *session) OnMessage(_ *gws.Conn, m *gws.Message) {
	defer m.Close()
	s.touch()
	if m.Opcode == gws.OpcodeBinary {
		s.binary(m.Bytes())
		return
	}
	if m.Opcode != gws.OpcodeText {
		return
	}
	e, err := agentproto.Decode(m.Bytes())
	if err != nil {
		s.a.log.Warn("malformed message from the hub", "err", err)
		return
	}
	if !s.welcomed.Load() {
		s.beforeWelcome(e)
		return
	}
	switch e.Type {
	case agentproto.TypeCmd:
		s.a.command(s, e)
	case agentproto.TypeHeartbeatAck:
	case agentproto.TypeError:
		var pe agentproto.Error
		_ = agentproto.DecodeBody(e, &pe)
		s.a.log.Warn("hub reported an error", "code", pe.Code, "message", pe.Message, "id", e.ID)
	default:
		s.a.log.Debug("ignoring message", "type", e.Type)
	}
}

// binary hands a stream frame to the mux. A malformed frame breaks the
// protocol: the agent drops the connection (and reconnects). Binary
// messages from a hub without streams are ignored, as protocol 1 reserved
// them.
func (s *session) binary(msg []byte) {
	m := s.mux.Load()
	if m == nil {
		return
	}
	if err := m.Deliver(msg); err != nil {
		s.a.log.Warn("malformed stream frame from the hub; dropping the connection", "err", err)
		s.close(closeProtocolError, "malformed stream frame")
	}
}

func (s *session) beforeWelcome(e agentproto.Envelope) {
	var r welcomeResult
	switch e.Type {
	case agentproto.TypeWelcome:
		r.err = agentproto.DecodeBody(e, &r.w)
	case agentproto.TypeError:
		var pe agentproto.Error
		if r.err = agentproto.DecodeBody(e, &pe); r.err == nil {
			r.err = fmt.Errorf("hub refused hello: %w", &pe)
		}
	default:
		s.a.log.Debug("ignoring message before welcome", "type", e.Type)
		return
	}
	if r.err == nil {
		if agentproto.HasStreams(r.w.Protocol) {
			// A backlog as deep as the stream cap: a burst of OPENs
			// must not be refused while the accept loop is not yet
			// scheduled, and each waiting stream already counts
			// against MaxStreams.
			s.mux.Store(streams.New(s, streams.Config{Role: streams.RoleAgent, MaxStreams: maxStreams, AcceptBacklog: maxStreams}))
		}
		s.welcomed.Store(true)
	}
	select {
	case s.welcome <- r:
	default:
	}
}

// ctxDialer dials with the agent's context and closes the connection if
// the context ends before the handshake is over.
type ctxDialer struct {
	ctx  context.Context
	stop func() bool
}

func (d *ctxDialer) Dial(network, addr string) (net.Conn, error) {
	var nd net.Dialer
	dctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
	defer cancel()
	c, err := nd.DialContext(dctx, network, addr)
	if err != nil {
		return nil, err
	}
	d.stop = context.AfterFunc(d.ctx, func() { c.Close() })
	return c, nil
}

// readLoopRecovery keeps a bug in message handling from killing the
// agent. gws defers the function around each OnMessage; it is a plain
// closure so that recover is called directly by the deferred function.
func (a *Agent) readLoopRecovery() func(gws.Logger) {
	return func(gws.Logger) {
		if p := recover(); p != nil {
			a.log.Error("panic while handling a hub message", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}
}

// dial opens the WebSocket with token. A refused upgrade becomes a
// *HubError carrying the status and Retry-After.
func (a *Agent) dial(ctx context.Context, s *session, token string) (*gws.Conn, error) {
	d := &ctxDialer{ctx: ctx}
	conn, resp, err := gws.NewClient(s, &gws.ClientOption{
		Addr:               a.s.wsURL.String(),
		RequestHeader:      http.Header{"Authorization": {"Bearer " + token}, "User-Agent": {"hostgate-agent/" + a.s.AgentVersion}},
		ParallelEnabled:    false,
		ReadMaxPayloadSize: agentproto.MaxMessage,
		HandshakeTimeout:   a.s.HTTPTimeout,
		NewDialer:          func() (gws.Dialer, error) { return d, nil },
		Recovery:           a.readLoopRecovery(),
		// Invalid UTF-8 in a text message closes with 1007, as on the hub.
		CheckUtf8Enabled: true,
	})
	if d.stop != nil {
		d.stop()
	}
	if err == nil {
		return conn, nil
	}
	if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
		// gws has closed the connection; whatever of the body is already
		// buffered still tells the hub's error code.
		var body []byte
		if resp.Body != nil {
			body, _ = io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
		}
		return nil, hubError("ws", resp, body)
	}
	return nil, fmt.Errorf("ws: %w", err)
}
