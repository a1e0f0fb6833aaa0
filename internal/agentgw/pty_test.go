package agentgw_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agent"
	"hostgate/internal/agentgw"
	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
	"hostgate/internal/streams"
)

// ptyHub starts a hub with one connected in-process agent allowed max
// terminals, and returns the hub and the host id.
func ptyHub(t *testing.T, max int) (*hubtest.Hub, string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("terminal behaviour is tested on Linux")
	}
	// The in-process agent starts $SHELL: a plain POSIX shell starts fast
	// and, unlike readline, keeps input typed before its prompt.
	t.Setenv("SHELL", "/bin/sh")
	h := hubtest.Start(t, hubtest.Embedded)
	u := h.Register(t)
	host := h.ConnectAgent(t, u.User.ID, func(c *agent.Config) { c.MaxTerminals = max })
	return h, host
}

func openPTY(t *testing.T, h *hubtest.Hub, host string, cols, rows int) *agentgw.PTY {
	t.Helper()
	p, err := h.Gateway().OpenPTY(t.Context(), host, cols, rows)
	if err != nil {
		t.Fatalf("OpenPTY: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func write(t *testing.T, p *agentgw.PTY, s string) {
	t.Helper()
	if _, err := p.Write([]byte(s)); err != nil {
		t.Fatalf("write %q: %v", s, err)
	}
}

// readUntil reads p until its output contains want, and returns the
// output; it fails after 10 s or at the end of the stream.
func readUntil(t *testing.T, p *agentgw.PTY, want string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var out strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(out.String(), want) {
		n, err := p.ReadContext(ctx, buf)
		out.Write(buf[:n])
		if err != nil {
			t.Fatalf("reading for %q: %v; got %q", want, err, out.String())
		}
	}
	return out.String()
}

// readToEOF drains p and fails unless it ends with io.EOF within 10 s.
func readToEOF(t *testing.T, p *agentgw.PTY) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	buf := make([]byte, 4096)
	for {
		_, err := p.ReadContext(ctx, buf)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("got %v, want io.EOF", err)
		}
	}
}

// TestPTYEchoResizeExit drives one terminal through a real hub and agent:
// a command's output comes back, a resize shows in stty size, exit ends
// the stream with EOF.
func TestPTYEchoResizeExit(t *testing.T) {
	h, host := ptyHub(t, 0)
	p := openPTY(t, h, host, 80, 24)
	// The quotes keep the terminal's echo of the input from matching.
	write(t, p, "echo hel''lo\n")
	readUntil(t, p, "hello")

	if err := p.Resize(t.Context(), 100, 40); err != nil {
		t.Fatalf("Resize: %v", err)
	}
	write(t, p, "stty size\n")
	readUntil(t, p, "40 100")

	write(t, p, "exit\n")
	readToEOF(t, p)
	select {
	case <-p.Done(): // the agent closes the stream after the EOF
	case <-time.After(10 * time.Second):
		t.Fatal("stream not closed after the shell exited")
	}
	if _, err := p.Write([]byte("echo late\n")); err == nil {
		t.Error("write after the shell exited: got no error")
	}
	var pe *agentproto.Error
	if err := p.Resize(t.Context(), 90, 30); !errors.As(err, &pe) || pe.Code != agentproto.CodeUnknownStream {
		t.Errorf("resize after the end: got %v, want %s", err, agentproto.CodeUnknownStream)
	}
}

// TestPTYUnreadStreamStallsNoOther: twenty terminals on one agent, one
// of them printing without end and never read; the others still answer,
// and so do commands.
func TestPTYUnreadStreamStallsNoOther(t *testing.T) {
	const n = 20
	h, host := ptyHub(t, n)
	ps := make([]*agentgw.PTY, n)
	for i := range ps {
		ps[i] = openPTY(t, h, host, 80, 24)
	}
	write(t, ps[0], "yes flood\n") // fills its credit, then blocks on the terminal
	for i, p := range ps[1:] {
		write(t, p, fmt.Sprintf("echo hel''lo-%d\n", i))
	}
	for i, p := range ps[1:] {
		readUntil(t, p, fmt.Sprintf("hello-%d", i))
	}
	if err := ps[n-1].Resize(t.Context(), 100, 40); err != nil {
		t.Fatalf("Resize beside a stalled stream: %v", err)
	}
	write(t, ps[n-1], "stty size\n")
	readUntil(t, ps[n-1], "40 100")
}

// TestPTYStartFailureClosesStream: a terminal beyond the agent's cap is
// closed with the application code and the agent's reason.
func TestPTYStartFailureClosesStream(t *testing.T) {
	h, host := ptyHub(t, 1)
	first := openPTY(t, h, host, 0, 0)
	write(t, first, "echo hel''lo\n")
	readUntil(t, first, "hello")
	second := openPTY(t, h, host, 0, 0)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := second.ReadContext(ctx, make([]byte, 64))
	var ce *streams.CloseError
	if !errors.As(err, &ce) || ce.Code != streams.CodeApp || !strings.Contains(ce.Reason, "too many") {
		t.Fatalf("got %v, want a close with code %d about too many sessions", err, streams.CodeApp)
	}
}

// TestOpenPTYNotLocal: a host whose agent is not connected here.
func TestOpenPTYNotLocal(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	if _, err := h.Gateway().OpenPTY(t.Context(), "00000000-0000-0000-0000-000000000000", 80, 24); !errors.Is(err, agentgw.ErrNotLocal) {
		t.Fatalf("got %v, want ErrNotLocal", err)
	}
}
