package terminals

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/streams"
)

// Terminal is a terminal on an agent this instance holds: what the
// agent gateway's PTY provides.
type Terminal interface {
	ReadContext(ctx context.Context, p []byte) (int, error)
	WriteContext(ctx context.Context, p []byte) (int, error)
	Resize(ctx context.Context, cols, rows int) error
	Close() error
	Done() <-chan struct{}
	PeerClose() *streams.CloseError
}

// exitGrace is how long the pump waits, after the terminal's EOF, for the
// CLOSE that carries the exit status.
const exitGrace = 2 * time.Second

// session is a terminal held by this instance: the agent stream and the
// output read from it that the client has not yet acknowledged. The pump
// reads the stream only while the buffer has room, so a client that stops
// reading stops the agent's stream (its credit runs out) and nothing else.
type session struct {
	id     string
	owner  Principal
	hostID string
	term   Terminal
	bufCap int

	mu      sync.Mutex
	buf     []byte // output from offset base on
	base    int64
	ended   bool
	exit    *int
	reason  string
	changed chan struct{} // closed and replaced when buf grows or the session ends
	room    chan struct{} // signalled when the client acknowledges output

	lastOp atomic.Int64 // unix nanoseconds of the last client operation
	stop   context.CancelFunc
	pumped chan struct{}
}

func newSession(id string, owner Principal, hostID string, term Terminal, bufCap int) *session {
	ctx, stop := context.WithCancel(context.Background())
	s := &session{id: id, owner: owner, hostID: hostID, term: term, bufCap: bufCap,
		changed: make(chan struct{}), room: make(chan struct{}, 1), stop: stop, pumped: make(chan struct{})}
	s.touch()
	go s.pump(ctx)
	return s
}

func (s *session) touch() { s.lastOp.Store(time.Now().UnixNano()) }

func (s *session) idleFor(now time.Time) time.Duration {
	return now.Sub(time.Unix(0, s.lastOp.Load()))
}

// pump copies the terminal's output into the buffer while it has room.
func (s *session) pump(ctx context.Context) {
	defer close(s.pumped)
	chunk := make([]byte, streams.MaxPayload)
	for {
		s.mu.Lock()
		free := s.bufCap - len(s.buf)
		s.mu.Unlock()
		if free <= 0 {
			select {
			case <-s.room:
				continue
			case <-ctx.Done():
				s.end(nil, "terminal closed")
				return
			}
		}
		n, err := s.term.ReadContext(ctx, chunk[:min(free, len(chunk))])
		if n > 0 {
			s.mu.Lock()
			s.buf = append(s.buf, chunk[:n]...)
			s.broadcast()
			s.mu.Unlock()
		}
		if err != nil {
			s.finish(ctx, err)
			return
		}
	}
}

// finish records how the terminal ended.
func (s *session) finish(ctx context.Context, err error) {
	var ce *streams.CloseError
	switch {
	case errors.Is(err, io.EOF):
		// The shell exited; its status follows in the stream's CLOSE.
		t := time.NewTimer(exitGrace)
		defer t.Stop()
		select {
		case <-s.term.Done():
		case <-t.C:
		case <-ctx.Done():
		}
		var exit *int
		if pc := s.term.PeerClose(); pc != nil && pc.Reason != "" {
			var te agentproto.TerminalExit
			if json.Unmarshal([]byte(pc.Reason), &te) == nil {
				exit = &te.ExitCode
			}
		}
		s.end(exit, "")
	case errors.As(err, &ce) && ce.Remote:
		s.end(nil, ce.Reason)
	case ctx.Err() != nil:
		s.end(nil, "terminal closed")
	default:
		s.end(nil, "the connection to the agent was lost")
	}
}

func (s *session) end(exit *int, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended, s.exit, s.reason = true, exit, reason
	s.broadcast()
}

// broadcast wakes every waiting reader; called with s.mu held.
func (s *session) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Chunk is what a read returns: output starting at Offset (the count of
// output bytes before it), and, once the output is over, EOF with the
// shell's exit status or why the terminal ended.
type Chunk struct {
	Data     []byte `json:"data,omitempty"`
	Offset   int64  `json:"offset"`
	EOF      bool   `json:"eof,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// read returns up to max bytes of output. With from ≥ 0 it first drops the
// output before from (the caller has it) and keeps what it returns until
// a later read acknowledges it, so a lost answer can be asked for again;
// with from < 0 what it returns is acknowledged at once. It waits up to
// wait for output when there is none.
func (s *session) read(ctx context.Context, from int64, max int, wait time.Duration) (Chunk, error) {
	s.touch()
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	s.mu.Lock()
	if from >= 0 {
		if err := s.ack(from); err != nil {
			s.mu.Unlock()
			return Chunk{}, err
		}
	}
	for len(s.buf) == 0 && !s.ended && wait > 0 {
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-timeout:
			wait = 0
		case <-ctx.Done():
			return Chunk{}, ctx.Err()
		}
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	n := min(max, len(s.buf))
	c := Chunk{Data: append([]byte(nil), s.buf[:n]...), Offset: s.base}
	if s.ended && n == len(s.buf) {
		c.EOF, c.ExitCode, c.Reason = true, s.exit, s.reason
	}
	if from < 0 {
		s.drop(n)
	}
	return c, nil
}

// ack drops the output before offset from; called with s.mu held.
func (s *session) ack(from int64) error {
	switch {
	case from < s.base:
		return apperr.New(apperr.CodeInvalidBody, "offset is before the output still held")
	case from > s.base+int64(len(s.buf)):
		return apperr.New(apperr.CodeInvalidBody, "offset is past the output read so far")
	}
	s.drop(int(from - s.base))
	return nil
}

func (s *session) drop(n int) {
	if n == 0 {
		return
	}
	s.buf = append(s.buf[:0], s.buf[n:]...)
	s.base += int64(n)
	select {
	case s.room <- struct{}{}:
	default:
	}
}

// write sends input to the terminal; it waits while the agent's window is
// full, up to ctx.
func (s *session) write(ctx context.Context, input []byte) error {
	s.touch()
	s.mu.Lock()
	ended := s.ended
	s.mu.Unlock()
	if ended {
		return errEnded()
	}
	if _, err := s.term.WriteContext(ctx, input); err != nil {
		if ctx.Err() != nil {
			return apperr.New(CodeTerminalBusy, "the terminal is not taking input")
		}
		return errEnded()
	}
	return nil
}

func (s *session) resize(ctx context.Context, cols, rows int) error {
	s.touch()
	err := s.term.Resize(ctx, cols, rows)
	if e, ok := errors.AsType[*agentproto.Error](err); ok {
		if e.Code == agentproto.CodeUnknownStream {
			return errEnded()
		}
		return apperr.New(apperr.CodeInvalidBody, e.Message)
	}
	return err
}

// close ends the terminal (the agent kills its processes) and the pump;
// the output not yet read stays readable.
func (s *session) close() {
	s.touch()
	_ = s.term.Close()
	s.stop()
	<-s.pumped
	s.end(nil, "terminal closed")
}

func errEnded() error {
	return apperr.New(CodeTerminalEnded, "the terminal has ended")
}
