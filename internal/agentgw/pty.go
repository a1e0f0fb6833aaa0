package agentgw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/streams"
)

// Errors of OpenPTY.
var (
	// ErrNotLocal: the host's agent is not connected to this instance
	// (it may be offline, or held by another instance).
	ErrNotLocal = errors.New("agentgw: the host's agent is not connected to this instance")
	// ErrNoStreams: the agent's protocol predates streams; it needs an upgrade.
	ErrNoStreams = errors.New("agentgw: the agent does not support streams; upgrade it")
)

// resizeTimeout bounds a shell.resize round trip.
const resizeTimeout = 10 * time.Second

// PTY is a terminal on an agent connected to this instance: its byte
// stream (terminal output to read, input to write; EOF when the shell has
// exited; Close ends the shell) and the connection it lives on, which
// Resize uses, since stream ids belong to one connection.
type PTY struct {
	*streams.Stream
	g *Gateway
	s *session
}

// OpenPTY starts a terminal of cols × rows (0 for the agent's default,
// 80 × 24) running the host's default shell on hostID's agent, which must
// be connected to this instance (else ErrNotLocal) and speak streams (else
// ErrNoStreams). It does not wait for the shell: a terminal the agent
// cannot start reports a *streams.CloseError with streams.CodeApp on its
// first Read.
func (g *Gateway) OpenPTY(ctx context.Context, hostID string, cols, rows int) (*PTY, error) {
	meta := agentproto.StreamMeta{Kind: agentproto.StreamKindPTY, Cols: cols, Rows: rows}
	if err := meta.Validate(); err != nil {
		return nil, err
	}
	s, err := g.localSession(hostID)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	mux := s.streamMux()
	if mux == nil {
		return nil, ErrNotLocal // the connection has just ended
	}
	st, err := mux.Open(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("agentgw: open terminal stream: %w", err)
	}
	return &PTY{Stream: st, g: g, s: s}, nil
}

func (g *Gateway) localSession(hostID string) (*session, error) {
	s, ok := g.disp.Local(hostID).(*session)
	switch {
	case !ok:
		return nil, ErrNotLocal
	case !s.streams:
		return nil, ErrNoStreams
	}
	return s, nil
}

// Resize sets the terminal's size with a shell.resize command on the
// terminal's connection. The agent's refusal comes back as an
// *agentproto.Error (invalid_args, unknown_stream once the terminal has
// ended); a lost connection as the dispatcher's host_offline or
// agent_timeout.
func (p *PTY) Resize(ctx context.Context, cols, rows int) error {
	r := agentproto.ShellResize{StreamID: p.ID(), Cols: cols, Rows: rows}
	if err := r.Validate(); err != nil {
		return err
	}
	args, err := json.Marshal(r)
	if err != nil {
		return err
	}
	resp, err := p.g.disp.SendVia(ctx, p.s, agentproto.OpShellResize, args, resizeTimeout)
	if err != nil {
		return err
	}
	if !resp.OK {
		if resp.Error == nil {
			return &agentproto.Error{Code: agentproto.CodeFailed, Message: "resize failed"}
		}
		return resp.Error
	}
	return nil
}
