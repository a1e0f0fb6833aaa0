package agent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"hostgate/internal/agent/pty"
	"hostgate/internal/agentproto"
	"hostgate/internal/streams"
)

// Terminals over streams (docs/terminal.md, "Hub–agent wiring"): the hub
// opens a stream whose metadata is an agentproto.StreamMeta, the agent
// starts a session of its pty.Manager for it and copies bytes both ways.
// The shell's exit ends the stream (EOF, then close); the stream's close,
// or the connection's end, ends the shell. shell.resize names the stream.

// resizeWait bounds how long shell.resize waits for a stream the hub has
// opened but the accept loop has not reached yet: the command and the
// stream's OPEN travel in order, but are handled on different goroutines.
const resizeWait = 2 * time.Second

// terminal is one PTY stream of a session.
type terminal struct {
	st *streams.Stream

	mu         sync.Mutex
	pty        *pty.Session // nil until started
	cols, rows int          // a resize that came before the start
}

// resize resizes the terminal, or remembers the size until it starts.
func (t *terminal) resize(cols, rows int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pty == nil {
		t.cols, t.rows = cols, rows
		return nil
	}
	return t.pty.Resize(cols, rows)
}

// terminals binds stream ids to terminals on one connection.
type terminals struct {
	mu       sync.Mutex
	byID     map[uint32]*terminal
	accepted uint32        // highest stream id the accept loop took
	changed  chan struct{} // closed and replaced at each accept
}

func (ts *terminals) bind(t *terminal) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.byID == nil {
		ts.byID = map[uint32]*terminal{}
	}
	ts.byID[t.st.ID()] = t
	ts.accepted = t.st.ID()
	if ts.changed != nil {
		close(ts.changed)
		ts.changed = nil
	}
}

func (ts *terminals) unbind(t *terminal) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.byID[t.st.ID()] == t {
		delete(ts.byID, t.st.ID())
	}
}

// lookup returns the terminal of stream id, waiting while the id may
// still be on its way through the accept loop.
func (ts *terminals) lookup(ctx context.Context, id uint32) (*terminal, bool) {
	ctx, cancel := context.WithTimeout(ctx, resizeWait)
	defer cancel()
	for {
		ts.mu.Lock()
		t, ok := ts.byID[id]
		if ok || id <= ts.accepted {
			ts.mu.Unlock()
			return t, ok
		}
		if ts.changed == nil {
			ts.changed = make(chan struct{})
		}
		ch := ts.changed
		ts.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// startStreams starts the accept loop of a welcomed session whose hub
// speaks streams; it ends when the connection does.
func (s *session) startStreams() {
	if m := s.mux.Load(); m != nil {
		s.work.Go(func() { s.acceptLoop(m) })
	}
}

// waitStreams waits, after the connection ended, for its terminals to end.
func (s *session) waitStreams() { s.work.Wait() }

func (s *session) acceptLoop(m *streams.Mux) {
	for {
		st, err := m.Accept(context.Background())
		if err != nil {
			return
		}
		t := &terminal{st: st}
		s.terms.bind(t)
		s.work.Go(func() { s.serveTerminal(t) })
	}
}

// serveTerminal runs one terminal stream to its end. The terminal is
// unbound before the stream's CLOSE goes out, so once the hub has seen
// the stream end, a resize of it is answered unknown_stream.
func (s *session) serveTerminal(t *terminal) {
	a := s.a
	p, err := a.startTerminal(t)
	if err != nil {
		a.log.Info("terminal not started", "stream", t.st.ID(), "err", err)
		s.terms.unbind(t)
		_ = t.st.CloseWithCode(streams.CodeApp, err.Error())
		return
	}
	a.log.Debug("terminal started", "stream", t.st.ID(), "session", p.ID())
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(p, t.st) }) // input; ends with the stream or the PTY
	wg.Go(func() {
		<-t.st.Done() // closed by the hub, or the connection is gone
		_ = p.Close()
	})
	copyOutput(t.st, p)
	_ = t.st.CloseWrite()
	_ = p.Close()
	s.terms.unbind(t)
	_ = t.st.CloseWithCode(streams.CodeNormal, exitReason(p))
	wg.Wait()
	a.log.Debug("terminal ended", "stream", t.st.ID(), "session", p.ID())
}

// exitReason is the CLOSE reason telling the hub how the shell ended.
func exitReason(p *pty.Session) string {
	code, err := p.Wait()
	if err != nil {
		return ""
	}
	b, _ := json.Marshal(agentproto.TerminalExit{ExitCode: code})
	return string(b)
}

// startTerminal starts the PTY the stream's metadata asks for, at the
// latest size a resize asked for.
func (a *Agent) startTerminal(t *terminal) (*pty.Session, error) {
	var meta agentproto.StreamMeta
	if err := json.Unmarshal(t.st.Meta(), &meta); err != nil {
		return nil, errors.New("stream metadata is not valid JSON")
	}
	if err := meta.Validate(); err != nil {
		return nil, err
	}
	p, err := a.ptys.Open(pty.Options{Command: meta.Command, Cols: meta.Cols, Rows: meta.Rows})
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.pty = p
	cols, rows := t.cols, t.rows
	t.mu.Unlock()
	if cols > 0 {
		_ = p.Resize(cols, rows)
	}
	return p, nil
}

// copyOutput copies terminal output to the stream until the terminal ends
// (the shell exited, or the PTY was closed) or the stream does.
func copyOutput(st *streams.Stream, p *pty.Session) {
	buf := make([]byte, streams.MaxPayload)
	for {
		n, err := p.Read(buf)
		if n > 0 {
			if _, werr := st.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// resizeTerminal serves agentproto.OpShellResize for the session the
// command came on.
func (s *session) resizeTerminal(ctx context.Context, args json.RawMessage) (any, error) {
	var r agentproto.ShellResize
	if err := json.Unmarshal(args, &r); err != nil {
		return nil, agentproto.ArgsError("args must be {stream_id, cols, rows}")
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if s.mux.Load() == nil {
		return nil, cmdError(agentproto.CodeUnknownStream, "this connection carries no streams")
	}
	t, ok := s.terms.lookup(ctx, r.StreamID)
	if !ok {
		return nil, cmdError(agentproto.CodeUnknownStream, "no terminal on this stream")
	}
	if err := t.resize(r.Cols, r.Rows); err != nil {
		return nil, cmdError(agentproto.CodeFailed, err.Error())
	}
	return struct{}{}, nil
}
