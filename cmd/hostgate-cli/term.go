package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	hostgate "hostgate/sdk/go"
)

// console is the local terminal of term (console_unix.go,
// console_windows.go); tests use a fake.
type console interface {
	// IsTerminal reports whether stdin and stdout are a terminal.
	IsTerminal() bool
	// Size is the terminal's size.
	Size() (cols, rows int, err error)
	// MakeRaw puts the terminal in raw mode; restore undoes it.
	MakeRaw() (restore func(), err error)
	// Resized signals each change of the terminal's size until ctx ends.
	Resized(ctx context.Context) <-chan struct{}
	// In and Out are the terminal's input and output.
	In() io.Reader
	Out() io.Writer
}

// detachKey (Ctrl-]) ends term, closing the remote shell.
const detachKey = 0x1d

// readWait is how long each pull-mode read waits for output.
const readWait = 20 * time.Second

// term runs the host's shell in the local terminal, in raw mode, until
// the shell exits (its status is passed through) or Ctrl-] is typed.
func (a *app) term(ctx context.Context, args []string) error {
	c := newCommand("term", "hostgate-cli term HOST")
	pos, err := c.parse(args, 1)
	if err != nil {
		return err
	}
	con := a.console
	if !con.IsTerminal() {
		return usageErr("term: stdin and stdout must be a terminal", c.usage)
	}
	id, _, err := a.resolveHost(ctx, pos[0])
	if err != nil {
		return err
	}
	// Resizes are watched before the size is read: a resize between the
	// two would otherwise be lost (SIGWINCH is ignored until watched),
	// and the remote terminal would keep the old size.
	rctx, stopResize := context.WithCancel(ctx)
	defer stopResize()
	resized := con.Resized(rctx)
	cols, rows, err := con.Size()
	if err != nil {
		cols, rows = 0, 0 // the hub's 80 × 24
	}
	cctx, cancel := a.callCtx(ctx, 0)
	s, err := a.client.OpenShell(cctx, id, cols, rows)
	cancel()
	if err != nil {
		return err
	}
	restore, err := con.MakeRaw()
	if err != nil {
		a.closeSession(ctx, s)
		return fmt.Errorf("raw mode: %w", err)
	}
	defer restore()
	code, reason, err := a.termLoop(ctx, s, con, resized)
	switch {
	case err != nil:
		return err
	case reason != "":
		return fmt.Errorf("the session ended: %s", reason)
	}
	return remoteStatus(code)
}

// termEnd is how a term session ended.
type termEnd struct {
	code   int
	reason string
	err    error
	detach bool
}

// termLoop copies the terminal's input to the session and its output to
// the terminal, and passes on resizes, until the shell's output ends, the
// detach key is typed, or ctx ends; resized signals the local terminal's
// size changes. Only output the shell has written already is lost on the
// way out.
func (a *app) termLoop(ctx context.Context, s *hostgate.ShellSession, con console, resized <-chan struct{}) (code int, reason string, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan termEnd, 2)
	go a.termOutput(ctx, s, con.Out(), done)
	go a.termInput(ctx, s, con.In(), done)
	go a.termResize(ctx, s, con, resized)
	var end termEnd
	select {
	case end = <-done:
	case <-ctx.Done():
		end = termEnd{err: ctx.Err()}
	}
	if end.err != nil || end.detach {
		a.closeSession(ctx, s)
	}
	return end.code, end.reason, end.err
}

func (a *app) termOutput(ctx context.Context, s *hostgate.ShellSession, out io.Writer, done chan<- termEnd) {
	for {
		cctx, cancel := a.callCtx(ctx, readWait)
		o, err := s.Read(cctx, 0, readWait)
		cancel()
		if err != nil {
			done <- termEnd{err: err}
			return
		}
		if _, err := out.Write(o.Data); err != nil {
			done <- termEnd{err: err}
			return
		}
		if o.EOF {
			switch {
			case o.ExitCode != nil:
				done <- termEnd{code: *o.ExitCode}
			case o.Reason != "":
				done <- termEnd{reason: o.Reason}
			default:
				done <- termEnd{reason: "the output ended without an exit status"}
			}
			return
		}
	}
}

// termInput sends what is typed, a chunk at a time; the detach key sends
// what came before it and ends the session. The API carries input as a
// JSON string, so a character split between two reads waits for its
// remaining bytes. A write that fails because the shell has ended is left
// to termOutput, which sees the end.
func (a *app) termInput(ctx context.Context, s *hostgate.ShellSession, in io.Reader, done chan<- termEnd) {
	buf := make([]byte, 4096)
	var held []byte // the start of a split UTF-8 character
	for {
		n, rerr := in.Read(buf)
		chunk := append(held, buf[:n]...)
		detach := false
		if i := bytes.IndexByte(chunk, detachKey); i >= 0 {
			chunk, detach = chunk[:i], true
		}
		chunk, held = splitIncomplete(chunk)
		if detach {
			chunk, held = append(chunk, held...), nil
		}
		if len(chunk) > 0 {
			cctx, cancel := a.callCtx(ctx, 0)
			err := s.Write(cctx, string(chunk))
			cancel()
			if hostgate.ErrorCode(err) == "terminal_ended" || ctx.Err() != nil {
				return
			}
			if err != nil {
				done <- termEnd{err: err}
				return
			}
		}
		if detach {
			done <- termEnd{detach: true}
			return
		}
		if rerr != nil {
			return // no more input; the shell may still finish by itself
		}
	}
}

// splitIncomplete splits off the end of b when it is the start of a UTF-8
// character whose remaining bytes have not been read yet.
func splitIncomplete(b []byte) (complete, rest []byte) {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i], bytes.Clone(b[i:])
			}
			break
		}
	}
	return b, nil
}

func (a *app) termResize(ctx context.Context, s *hostgate.ShellSession, con console, resized <-chan struct{}) {
	for {
		select {
		case _, ok := <-resized:
			if !ok {
				return
			}
		case <-ctx.Done():
			return
		}
		cols, rows, err := con.Size()
		if err != nil {
			continue
		}
		cctx, cancel := a.callCtx(ctx, 0)
		_ = s.Resize(cctx, cols, rows) // a lost resize is redrawn at the next one
		cancel()
	}
}

// closeSession ends the remote shell, even when ctx is already done.
func (a *app) closeSession(ctx context.Context, s *hostgate.ShellSession) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = s.Close(cctx)
}
