package hostgate

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"time"
)

// ShellSession is an interactive shell on a host, driven by pull-mode
// calls (docs/terminal.md); each call is charged. Browsers use the
// terminal WebSocket instead.
type ShellSession struct {
	c      *Client
	hostID string
	// ID is the session's stream_id.
	ID string
}

// ShellOutput is what a Read returns.
type ShellOutput struct {
	// Data is the output since the last read.
	Data []byte
	// EOF: the output is over (the shell exited, or the session ended).
	EOF bool
	// ExitCode is the shell's exit status, when EOF and known (-1: killed).
	ExitCode *int
	// Reason says why the session ended, when not by the shell's exit.
	Reason string
}

// OpenShell starts the host's default shell on a terminal of cols × rows
// (0, 0 for 80 × 24).
func (c *Client) OpenShell(ctx context.Context, hostID string, cols, rows int) (*ShellSession, error) {
	var out struct {
		StreamID string `json:"stream_id"`
	}
	body := map[string]int{"cols": cols, "rows": rows}
	if err := c.do(ctx, http.MethodPost, hostPath(hostID)+"/shell/session/open", body, &out); err != nil {
		return nil, err
	}
	return &ShellSession{c: c, hostID: hostID, ID: out.StreamID}, nil
}

func (s *ShellSession) path(op string) string {
	return hostPath(s.hostID) + "/shell/session/" + url.PathEscape(s.ID) + "/" + op
}

// Write types input into the terminal ("ls\n").
func (s *ShellSession) Write(ctx context.Context, input string) error {
	return s.c.do(ctx, http.MethodPost, s.path("write"), map[string]string{"input": input}, nil)
}

// Read returns up to max bytes of output (0 for the hub's default),
// waiting up to wait (at most 25 s) when none is ready.
func (s *ShellSession) Read(ctx context.Context, max int, wait time.Duration) (ShellOutput, error) {
	var out struct {
		Data     string `json:"data"`
		EOF      bool   `json:"eof"`
		ExitCode *int   `json:"exit_code"`
		Reason   string `json:"reason"`
	}
	body := map[string]int{"max": max, "wait_ms": int(wait / time.Millisecond)}
	if err := s.c.do(ctx, http.MethodPost, s.path("read"), body, &out); err != nil {
		return ShellOutput{}, err
	}
	data, err := base64.StdEncoding.DecodeString(out.Data)
	if err != nil {
		return ShellOutput{}, err
	}
	return ShellOutput{Data: data, EOF: out.EOF, ExitCode: out.ExitCode, Reason: out.Reason}, nil
}

// Resize sets the terminal size.
func (s *ShellSession) Resize(ctx context.Context, cols, rows int) error {
	return s.c.do(ctx, http.MethodPost, s.path("resize"), map[string]int{"cols": cols, "rows": rows}, nil)
}

// Close ends the shell and every process it started.
func (s *ShellSession) Close(ctx context.Context) error {
	return s.c.do(ctx, http.MethodPost, s.path("close"), nil, nil)
}
