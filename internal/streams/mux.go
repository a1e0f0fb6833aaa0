// Package streams multiplexes byte streams over one message connection (the
// agent WebSocket): binary frames travel in binary messages beside the JSON
// text envelopes of package agentproto, and every stream has its own
// credit-based flow control, so a stream whose reader stops never holds up
// the other streams or the command channel. docs/streams.md describes the
// frames.
package streams

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
)

// InitialWindow is the credit each side holds for each direction of a new
// stream: a receiver buffers at most this much before its application
// reads. It is part of the version-1 format, so neither side announces it.
const InitialWindow = 256 << 10

// maxWindow bounds the credit a sender may hold; a grant beyond it is a
// protocol error.
const maxWindow = 1<<31 - 1

// Transport sends one binary message to the peer. It must be safe for
// concurrent use. Received binary messages are handed to Mux.Deliver.
type Transport interface {
	WriteBinary(msg []byte) error
}

// Role decides which stream ids a side opens, so the two sides never pick
// the same one: the hub opens odd ids, the agent even ids.
type Role uint8

// Roles.
const (
	RoleHub Role = iota + 1
	RoleAgent
)

// Config tunes a Mux. Zero fields take the defaults.
type Config struct {
	Role Role
	// MaxStreams caps the streams open at once, in both directions
	// (default 128). An OPEN beyond it is refused with CodeRefused.
	MaxStreams int
	// AcceptBacklog caps the opened streams waiting for Accept (default 16).
	// -1 refuses every stream the peer opens.
	AcceptBacklog int
}

// Errors.
var (
	ErrMuxClosed      = errors.New("streams: connection closed")
	ErrTooManyStreams = errors.New("streams: too many open streams")
	ErrStreamClosed   = errors.New("streams: stream closed")
)

// CloseError is how a stream ended when the peer (or this side, through
// CloseWithCode) closed it with a code other than CodeNormal.
type CloseError struct {
	Code   Code
	Reason string
	Remote bool
}

func (e *CloseError) Error() string {
	side := "local"
	if e.Remote {
		side = "remote"
	}
	return fmt.Sprintf("streams: %s close, code %d: %s", side, e.Code, e.Reason)
}

// Mux carries the streams of one connection. Deliver must be called with
// each binary message received, from one goroutine (the read loop); it
// never blocks on a stream.
type Mux struct {
	t       Transport
	role    Role
	max     int
	accepts chan *Stream
	ctrl    *ctrlQueue

	// opening is held from choosing a stream id to sending its OPEN, so
	// OPENs leave in id order: the peer refuses an id at or below the
	// highest it has seen ("stream id reused"), and concurrent Opens that
	// sent out of order had their streams refused.
	opening sync.Mutex

	mu       sync.Mutex
	streams  map[uint32]*Stream
	nextID   uint32 // next id this side opens
	lastPeer uint32 // highest id the peer opened
	closed   bool
	done     chan struct{}
}

// New returns a Mux sending over t. Close releases it.
func New(t Transport, cfg Config) *Mux {
	if cfg.Role != RoleHub && cfg.Role != RoleAgent {
		panic("streams: Config.Role must be RoleHub or RoleAgent")
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = 128
	}
	if cfg.AcceptBacklog == 0 {
		cfg.AcceptBacklog = 16
	}
	m := &Mux{
		t: t, role: cfg.Role, max: cfg.MaxStreams,
		streams: make(map[uint32]*Stream),
		nextID:  1,
		done:    make(chan struct{}),
	}
	if cfg.Role == RoleAgent {
		m.nextID = 2
	}
	if cfg.AcceptBacklog > 0 {
		m.accepts = make(chan *Stream, cfg.AcceptBacklog)
	}
	m.ctrl = newCtrlQueue(t, cfg.MaxStreams*4)
	return m
}

// Open starts a stream; meta (at most MaxMeta bytes) tells the peer what it
// is for. It does not wait for the peer: a refused stream reports a
// *CloseError with CodeRefused on its first Read or Write after the refusal.
func (m *Mux) Open(ctx context.Context, meta []byte) (*Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(meta) > MaxMeta {
		return nil, fmt.Errorf("streams: metadata of %d bytes exceeds %d", len(meta), MaxMeta)
	}
	m.opening.Lock()
	defer m.opening.Unlock()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrMuxClosed
	}
	if len(m.streams) >= m.max || m.nextID > math.MaxUint32-2 {
		m.mu.Unlock()
		return nil, ErrTooManyStreams
	}
	s := newStream(m, m.nextID, append([]byte(nil), meta...))
	m.nextID += 2
	m.streams[s.id] = s
	m.mu.Unlock()
	if err := m.send(Frame{Type: TypeOpen, Stream: s.id, Data: meta}); err != nil {
		s.terminate(err, err, true)
		return nil, err
	}
	return s, nil
}

// Accept waits for a stream the peer opened.
func (m *Mux) Accept(ctx context.Context) (*Stream, error) {
	if m.accepts == nil {
		return nil, errors.New("streams: this Mux refuses incoming streams")
	}
	select {
	case s := <-m.accepts:
		return s, nil
	case <-m.done:
		return nil, ErrMuxClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close ends every stream with ErrMuxClosed and stops the Mux. It sends
// nothing: it is called when the connection itself is going away.
func (m *Mux) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	close(m.done)
	all := make([]*Stream, 0, len(m.streams))
	for _, s := range m.streams {
		all = append(all, s)
	}
	clear(m.streams)
	m.mu.Unlock()
	for _, s := range all {
		s.terminate(ErrMuxClosed, ErrMuxClosed, false)
	}
	m.ctrl.stop()
	return nil
}

// NumStreams reports how many streams are open.
func (m *Mux) NumStreams() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.streams)
}

// send encodes f and writes it on the caller's goroutine.
func (m *Mux) send(f Frame) error {
	b, err := f.AppendBinary(make([]byte, 0, HeaderSize+len(f.Data)+len(f.Reason)+4))
	if err != nil {
		return err
	}
	select {
	case <-m.done:
		return ErrMuxClosed
	default:
	}
	return m.t.WriteBinary(b)
}

// remove forgets s; later frames for its id are ignored.
func (m *Mux) remove(s *Stream) {
	m.mu.Lock()
	if m.streams[s.id] == s {
		delete(m.streams, s.id)
	}
	m.mu.Unlock()
}

// Deliver handles one received binary message. It copies what it keeps,
// so msg may be reused afterwards. A malformed frame is returned as an
// error (the caller should treat it as a protocol violation of the
// connection); a well-formed frame that breaks a stream's rules closes that
// stream only. Frames for unknown or finished streams are ignored: ids are
// never reused, so they can only be late.
func (m *Mux) Deliver(msg []byte) error {
	f, err := DecodeFrame(msg)
	if err != nil {
		return err
	}
	if f.Type == TypeOpen {
		m.open(f)
		return nil
	}
	m.mu.Lock()
	s := m.streams[f.Stream]
	m.mu.Unlock()
	if s != nil {
		s.handle(f)
	}
	return nil
}

// open handles the peer's OPEN.
func (m *Mux) open(f Frame) {
	peerOdd := m.role == RoleAgent
	if (f.Stream%2 == 1) != peerOdd {
		m.ctrl.push(Frame{Type: TypeClose, Stream: f.Stream, Code: CodeProtocol, Reason: "wrong stream id parity"})
		return
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	if f.Stream <= m.lastPeer {
		m.mu.Unlock()
		m.ctrl.push(Frame{Type: TypeClose, Stream: f.Stream, Code: CodeProtocol, Reason: "stream id reused"})
		return
	}
	m.lastPeer = f.Stream
	if len(m.streams) >= m.max || m.accepts == nil {
		m.mu.Unlock()
		m.ctrl.push(Frame{Type: TypeClose, Stream: f.Stream, Code: CodeRefused, Reason: "too many streams"})
		return
	}
	s := newStream(m, f.Stream, append([]byte(nil), f.Data...))
	select {
	case m.accepts <- s:
		m.streams[s.id] = s
		m.mu.Unlock()
	default:
		m.mu.Unlock()
		m.ctrl.push(Frame{Type: TypeClose, Stream: f.Stream, Code: CodeRefused, Reason: "accept backlog full"})
	}
}
