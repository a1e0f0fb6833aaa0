//go:build !windows

package pty

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/creack/pty"
)

const maxSize = 65535

func defaultShell() []string {
	if sh := os.Getenv("SHELL"); sh != "" {
		return []string{sh}
	}
	return []string{"/bin/sh"}
}

// unixPTY is a PTY on a Unix pseudo-terminal. The command leads a session
// of its own (creack/pty sets Setsid and Setctty), so its pid is also the
// id of that session and of its first process group.
type unixPTY struct {
	master *os.File
	cmd    *exec.Cmd
	done   chan struct{} // closed when the command has been reaped
	code   int
	err    error

	mu     sync.Mutex
	closed bool

	// reapMu orders killSession before the reaping of the command, so a
	// kill never reaches a reused pid.
	reapMu sync.Mutex
	reaped bool
}

func start(opts Options) (PTY, error) {
	cmd := exec.Command(opts.Command[0], opts.Command[1:]...)
	cmd.Dir = opts.Dir
	cmd.Env = opts.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	if !slices.ContainsFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "TERM=") }) {
		cmd.Env = append(slices.Clip(cmd.Env), "TERM=xterm-256color")
	}
	master, err := pty.StartWithSize(cmd, winsize(opts.Cols, opts.Rows))
	if err != nil {
		return nil, err
	}
	p := &unixPTY{master: master, cmd: cmd, done: make(chan struct{})}
	go p.wait()
	return p, nil
}

func winsize(cols, rows int) *pty.Winsize {
	return &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}
}

// wait waits for the command to exit, then ends what is left of its
// session before reaping it: while it is a zombie its pid, and so the
// session and group ids, cannot be reused by another process. Once the
// last process holding the terminal is gone, reads on the master return
// the buffered output and then EIO, which Read turns into io.EOF.
func (p *unixPTY) wait() {
	pid := p.cmd.Process.Pid
	waitExited(pid)
	p.reapMu.Lock()
	if canWaitNoReap {
		killSession(pid)
	}
	err := p.cmd.Wait()
	p.reaped = true
	p.reapMu.Unlock()
	if !canWaitNoReap {
		killSession(pid)
	}
	p.code = p.cmd.ProcessState.ExitCode()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		p.err = err
	}
	close(p.done)
}

func (p *unixPTY) Read(b []byte) (int, error) {
	n, err := p.master.Read(b)
	if err != nil && (errors.Is(err, syscall.EIO) || errors.Is(err, os.ErrClosed)) {
		err = io.EOF
	}
	return n, err
}

func (p *unixPTY) Write(b []byte) (int, error) { return p.master.Write(b) }

func (p *unixPTY) Resize(cols, rows int) error {
	if err := checkSize(cols, rows); err != nil {
		return err
	}
	return pty.Setsize(p.master, winsize(cols, rows))
}

// Close kills the session's processes, waits until the command has been
// reaped and closes the terminal.
func (p *unixPTY) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	p.kill()
	<-p.done
	return p.master.Close()
}

func (p *unixPTY) kill() {
	p.reapMu.Lock()
	defer p.reapMu.Unlock()
	if !p.reaped {
		killSession(p.cmd.Process.Pid)
	}
}

func (p *unixPTY) Wait() (int, error) {
	<-p.done
	return p.code, p.err
}

func (p *unixPTY) Pid() int { return p.cmd.Process.Pid }
