// Package pty runs interactive shells on pseudo-terminals for the agent:
// the "Agent PTY sessions" part of the terminal feature (docs/terminal.md).
//
// A PTY is one session: a shell (or any command) on its own terminal,
// whose bytes are read and written like a stream, which can be resized,
// and whose process tree ends when it is closed. Start creates one with
// the operating system's mechanism, chosen by build tags:
//
//   - Unix (pty_unix.go): github.com/creack/pty. The shell leads a new
//     session with the terminal as its controlling tty. Closing sends
//     SIGKILL to every process of that session and of its process group
//     (tree_linux.go), so a child that ignores SIGHUP, or one a job-control
//     shell moved to a group of its own, still ends.
//   - Windows (pty_windows.go): ConPTY through
//     github.com/charmbracelet/x/conpty. The shell is created suspended,
//     put in a job object that kills its processes when the job is closed
//     or terminated, and only then resumed, so no child escapes the job.
//
// When the shell exits, the rest of its tree is ended too, and Read
// returns the output still buffered and then io.EOF: an exited shell is an
// ended session, even if something it started in the background still
// holds the terminal.
//
// Manager holds the sessions of one agent: ids, a cap on their number, an
// idle timeout and CloseAll for agent stop. It does not know about the
// hub; the stream framing over the agent WebSocket sits above it.
//
// PTY behaviour is tested on Linux. Wine 8 runs a program under ConPTY
// but delivers none of its output, so the Windows implementation is
// checked by building it and by a smoke test of exit codes under Wine.
package pty

import (
	"errors"
	"io"
)

// Default terminal size when Options leaves it zero.
const (
	DefaultCols = 80
	DefaultRows = 24
)

// PTY is one pseudo-terminal session. Read, Write and Resize may be
// called from different goroutines; Close may be called at any time and
// more than once.
type PTY interface {
	// Read reads terminal output. After the command has exited and its
	// output has been read, it returns io.EOF; after Close, it returns
	// io.EOF or an error.
	io.Reader
	// Write sends input to the terminal, as if typed.
	io.Writer
	// Resize sets the terminal size in character cells.
	Resize(cols, rows int) error
	// Close ends every process of the session and releases the terminal.
	Close() error
	// Wait blocks until the command has exited (by itself or through
	// Close) and returns its exit code; -1 when it was killed by a signal.
	Wait() (exitCode int, err error)
	// Pid is the process id of the command.
	Pid() int
}

// Options says what Start runs and on what terminal.
type Options struct {
	// Command is the program and its arguments. Empty means the default
	// shell: $SHELL or /bin/sh on Unix, cmd.exe on Windows.
	Command []string
	// Dir is the working directory; empty means the agent's.
	Dir string
	// Env is the environment; nil means the agent's. On Unix TERM is set
	// to xterm-256color when the environment has none.
	Env []string
	// Cols and Rows are the initial size; zero means DefaultCols and
	// DefaultRows.
	Cols, Rows int
}

// ErrInvalidSize is returned by Resize and Start for a size outside
// 1..65535 (Windows: 1..32767).
var ErrInvalidSize = errors.New("pty: terminal size out of range")

// Start starts opts.Command on a new pseudo-terminal.
func Start(opts Options) (PTY, error) {
	if opts.Cols == 0 {
		opts.Cols = DefaultCols
	}
	if opts.Rows == 0 {
		opts.Rows = DefaultRows
	}
	if err := checkSize(opts.Cols, opts.Rows); err != nil {
		return nil, err
	}
	if len(opts.Command) == 0 {
		opts.Command = defaultShell()
	}
	return start(opts)
}

func checkSize(cols, rows int) error {
	if cols < 1 || rows < 1 || cols > maxSize || rows > maxSize {
		return ErrInvalidSize
	}
	return nil
}
