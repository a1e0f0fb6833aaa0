// Package terminals gives clients interactive terminals on hosts, whichever
// hub instance they reach. A terminal lives on the instance that holds the
// agent's connection (its stream cannot leave that socket); its id names
// that instance, and every other instance reaches it with request/reply
// messages over coordination, as commands are routed. The client API's pull
// mode and the browser terminal are both clients of this package; the
// browser's is driven by Browser, the one pump between a terminal and its
// WebSocket, and its tickets (an admin's audited) are issued here too.
//
// Output waits on the owning instance in a bounded buffer until a client
// acknowledges it, so a lost reply between instances is asked for again
// rather than lost, and a client that stops reading holds up only its own
// terminal: the buffer fills, the stream's credit runs out and the agent
// stops reading that shell. See docs/terminal.md.
package terminals

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/coord"
)

// Error codes of this package (docs/terminal.md).
const (
	// CodeTerminalEnded: the shell has exited or the terminal was closed.
	CodeTerminalEnded = "terminal_ended"
	// CodeTerminalBusy: the shell has not taken input for a while.
	CodeTerminalBusy = "terminal_busy"
	// CodeAgentUpgradeRequired: the agent predates terminals.
	CodeAgentUpgradeRequired = "agent_upgrade_required"
	// CodeInvalidTicket: a terminal ticket that is unknown, used, expired,
	// or for another host or console.
	CodeInvalidTicket = "invalid_ticket"
)

// Errors Config.Open reports (the gateway's, translated by the wiring).
var (
	// ErrNotLocal: the host's agent is not connected to this instance.
	ErrNotLocal = errors.New("terminals: the host's agent is not connected to this instance")
	// ErrNoStreams: the agent predates streams; it needs an upgrade.
	ErrNoStreams = errors.New("terminals: the agent does not support streams")
)

// Limits and defaults.
const (
	// MaxInput bounds one write.
	MaxInput = 64 << 10
	// MaxRead bounds one read; DefaultRead is a read's size when not given.
	MaxRead     = 1 << 20
	DefaultRead = 16 << 10
	// MaxWait bounds how long a read waits for output.
	MaxWait = 25 * time.Second
	// writeTimeout bounds a write waiting for the agent's window.
	writeTimeout = 10 * time.Second
	// resizeTimeout bounds a resize's round trip to the agent.
	resizeTimeout = 10 * time.Second
	// endedLinger keeps an ended terminal answering EOF for a while after
	// the last operation before it is forgotten.
	endedLinger = time.Minute
)

// Principal is who opened a terminal; only the same principal may use it.
type Principal struct {
	Kind string `json:"kind"` // KindUser or KindAdmin
	ID   string `json:"id"`
	// APIKeyID is set on client API calls: each is charged.
	APIKeyID string `json:"api_key_id,omitempty"`
	// SessionID is the console login session a ticket was issued in; the
	// terminal WebSocket ends when that session does.
	SessionID string `json:"session_id,omitempty"`
}

// Principal kinds.
const (
	KindUser  = "user"
	KindAdmin = "admin"
)

func (p Principal) same(q Principal) bool { return p.Kind == q.Kind && p.ID == q.ID }

// Coordination is what terminals use of coordination (coord.Coord):
// tickets, the agents' presence and request/reply between instances.
type Coordination interface {
	PutTicket(ctx context.Context, key string, value []byte, ttl time.Duration) error
	TakeTicket(ctx context.Context, key string) (value []byte, ok bool, err error)
	Presence(ctx context.Context, hostID string) (instanceID string, ok bool, err error)
	Publish(ctx context.Context, channel string, msg []byte) error
	Subscribe(ctx context.Context, channel string) (coord.Subscription, error)
}

// Config wires a Service.
type Config struct {
	// Instance is this hub instance's id (the dispatcher's).
	Instance string
	Coord    Coordination
	// Local reports whether this instance holds hostID's agent.
	Local func(hostID string) bool
	// Open starts a terminal on an agent this instance holds; its errors
	// are ErrNotLocal, ErrNoStreams or the dispatcher's.
	Open func(ctx context.Context, hostID string, cols, rows int) (Terminal, error)
	// Hosts checks, when a ticket is issued and used, that the host may
	// be used; Logins, that the ticket's login session still holds; Audit
	// records an admin's tickets.
	Hosts  Hosts
	Logins Logins
	Audit  Auditor
	// Charge charges one call of a client API principal (APIKeyID set).
	Charge func(ctx context.Context, p Principal, hostID string) error
	// BufferBytes is the output held per terminal (default 256 KiB).
	BufferBytes int
	// IdleTimeout closes a terminal nobody has used for that long
	// (default 15 minutes).
	IdleTimeout time.Duration
	// TicketTTL is how long a ticket may wait to be used (default
	// TicketTTL, the expires_in the API announces). Only tests set it,
	// shorter, to see a ticket expire.
	TicketTTL time.Duration
	Log       *slog.Logger
}

// Service is one instance's terminals. Run must be running for terminals
// to be reached from other instances.
type Service struct {
	cfg Config

	mu       sync.Mutex
	sessions map[string]*session
	waiters  map[string]chan reply
}

// New returns a Service.
func New(cfg Config) *Service {
	if cfg.BufferBytes <= 0 {
		cfg.BufferBytes = 256 << 10
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 15 * time.Minute
	}
	if cfg.TicketTTL <= 0 {
		cfg.TicketTTL = TicketTTL
	}
	return &Service{cfg: cfg, sessions: map[string]*session{}, waiters: map[string]chan reply{}}
}

// Open starts a terminal of cols × rows (0 for 80 × 24) on hostID's agent
// for p and returns its id. The caller has checked that p may use the host.
func (s *Service) Open(ctx context.Context, p Principal, hostID string, cols, rows int) (string, error) {
	if err := (agentproto.StreamMeta{Kind: agentproto.StreamKindPTY, Cols: cols, Rows: rows}).Validate(); err != nil {
		return "", apperr.New(apperr.CodeInvalidBody, "cols and rows must be 0..65535")
	}
	r := request{Op: opOpen, Principal: p, HostID: hostID, Cols: cols, Rows: rows}
	if s.cfg.Local(hostID) {
		rep, err := s.serve(ctx, r)
		return rep.SID, err
	}
	owner, ok, err := s.cfg.Coord.Presence(ctx, hostID)
	if err != nil {
		return "", err
	}
	if !ok || owner == s.cfg.Instance {
		return "", hostOffline()
	}
	rep, err := s.call(ctx, owner, r, resizeTimeout)
	return rep.SID, err
}

// Write sends input to the terminal sid, as if typed.
func (s *Service) Write(ctx context.Context, p Principal, hostID, sid string, input []byte) error {
	if len(input) == 0 || len(input) > MaxInput {
		return apperr.New(apperr.CodeInvalidBody, "input must be 1 byte to 64 KiB")
	}
	_, err := s.do(ctx, request{Op: opWrite, Principal: p, HostID: hostID, SID: sid, Input: input}, writeTimeout)
	return err
}

// ReadOptions shape a read.
type ReadOptions struct {
	// Max bytes to return: 0 for DefaultRead, at most MaxRead.
	Max int
	// Wait for output up to this long when there is none (at most MaxWait).
	Wait time.Duration
	// From, when ≥ 0, acknowledges the output before this offset and
	// returns output from it on, keeping it until acknowledged by a later
	// read; -1 acknowledges what is returned at once (pull mode).
	From int64
}

// Read returns the terminal's output.
func (s *Service) Read(ctx context.Context, p Principal, hostID, sid string, o ReadOptions) (Chunk, error) {
	if o.Max == 0 {
		o.Max = DefaultRead
	}
	if o.Max < 0 || o.Max > MaxRead {
		return Chunk{}, apperr.New(apperr.CodeInvalidBody, "max must be 1..1048576")
	}
	if o.Wait < 0 || o.Wait > MaxWait {
		return Chunk{}, apperr.New(apperr.CodeInvalidBody, "wait_ms must be 0..25000")
	}
	rep, err := s.do(ctx, request{Op: opRead, Principal: p, HostID: hostID, SID: sid,
		Max: o.Max, From: o.From, WaitMs: o.Wait.Milliseconds()}, o.Wait)
	return rep.Chunk, err
}

// Resize sets the terminal's size.
func (s *Service) Resize(ctx context.Context, p Principal, hostID, sid string, cols, rows int) error {
	if cols < 1 || rows < 1 || cols > agentproto.MaxTermSize || rows > agentproto.MaxTermSize {
		return apperr.New(apperr.CodeInvalidBody, "cols and rows must be 1..65535")
	}
	_, err := s.do(ctx, request{Op: opResize, Principal: p, HostID: hostID, SID: sid, Cols: cols, Rows: rows}, resizeTimeout)
	return err
}

// Close ends the terminal; the agent kills its processes. Reads then
// answer EOF for a minute, and closing again does nothing.
func (s *Service) Close(ctx context.Context, p Principal, hostID, sid string) error {
	_, err := s.do(ctx, request{Op: opClose, Principal: p, HostID: hostID, SID: sid}, 0)
	return err
}

// Len is how many terminals this instance holds.
func (s *Service) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// do carries out an operation on an open terminal, here or on the
// instance its id names. busy is how long the operation itself may take.
func (s *Service) do(ctx context.Context, r request, busy time.Duration) (reply, error) {
	owner, ok := instanceOf(r.SID)
	if !ok {
		return reply{}, terminalNotFound()
	}
	if owner == s.cfg.Instance {
		return s.serve(ctx, r)
	}
	return s.call(ctx, owner, r, busy)
}

// serve carries out r on this instance.
func (s *Service) serve(ctx context.Context, r request) (reply, error) {
	if r.Op == opOpen {
		return s.open(ctx, r)
	}
	ss := s.lookup(r.SID, r.Principal, r.HostID)
	if ss == nil {
		return reply{}, terminalNotFound()
	}
	if err := s.charge(ctx, r.Principal, r.HostID); err != nil {
		return reply{}, err
	}
	switch r.Op {
	case opWrite:
		wctx, cancel := context.WithTimeout(ctx, writeTimeout)
		defer cancel()
		return reply{}, ss.write(wctx, r.Input)
	case opRead:
		c, err := ss.read(ctx, r.From, r.Max, time.Duration(r.WaitMs)*time.Millisecond)
		return reply{Chunk: c}, err
	case opResize:
		return reply{}, ss.resize(ctx, r.Cols, r.Rows)
	case opClose:
		// The terminal stays known for a while, reading as ended (EOF),
		// so a client's read after its own close is answered, not 404.
		ss.close()
		return reply{}, nil
	}
	return reply{}, apperr.New(apperr.CodeInvalidBody, "unknown terminal operation")
}

func (s *Service) open(ctx context.Context, r request) (reply, error) {
	if !s.cfg.Local(r.HostID) {
		return reply{}, hostOffline()
	}
	if err := s.charge(ctx, r.Principal, r.HostID); err != nil {
		return reply{}, err
	}
	term, err := s.cfg.Open(ctx, r.HostID, r.Cols, r.Rows)
	switch {
	case errors.Is(err, ErrNotLocal):
		return reply{}, hostOffline()
	case errors.Is(err, ErrNoStreams):
		return reply{}, apperr.New(CodeAgentUpgradeRequired, "the host's agent is too old for terminals; upgrade it")
	case err != nil:
		return reply{}, err
	}
	ss := newSession(s.newID(), r.Principal, r.HostID, term, s.cfg.BufferBytes)
	s.mu.Lock()
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	return reply{SID: ss.id}, nil
}

func (s *Service) charge(ctx context.Context, p Principal, hostID string) error {
	if p.APIKeyID == "" || s.cfg.Charge == nil {
		return nil
	}
	return s.cfg.Charge(ctx, p, hostID)
}

// lookup finds a terminal of p on hostID; another principal's terminal
// reads as missing.
func (s *Service) lookup(sid string, p Principal, hostID string) *session {
	s.mu.Lock()
	ss := s.sessions[sid]
	s.mu.Unlock()
	if ss == nil || !ss.owner.same(p) || ss.hostID != hostID {
		return nil
	}
	return ss
}

// sweep closes terminals idle past the timeout, and ended ones nobody
// has asked about for a minute.
func (s *Service) sweep(now time.Time) {
	var stale []*session
	s.mu.Lock()
	for id, ss := range s.sessions {
		ss.mu.Lock()
		ended := ss.ended
		ss.mu.Unlock()
		idle := ss.idleFor(now)
		if idle >= s.cfg.IdleTimeout || ended && idle >= endedLinger {
			delete(s.sessions, id)
			stale = append(stale, ss)
		}
	}
	s.mu.Unlock()
	for _, ss := range stale {
		ss.close()
	}
}

// closeAll ends every terminal of this instance (at shutdown).
func (s *Service) closeAll() {
	s.mu.Lock()
	all := s.sessions
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, ss := range all {
		wg.Go(ss.close)
	}
	wg.Wait()
}

// A terminal id is "<instance id>.<128 random bits>".
func (s *Service) newID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return s.cfg.Instance + "." + base64.RawURLEncoding.EncodeToString(b)
}

func instanceOf(sid string) (string, bool) {
	inst, rnd, ok := strings.Cut(sid, ".")
	if !ok || inst == "" || len(inst) > 64 || len(rnd) != 22 {
		return "", false
	}
	return inst, true
}

func terminalNotFound() error { return apperr.NotFound("terminal") }

func hostOffline() error {
	return apperr.New("host_offline", "the host's agent is not connected")
}
