package pty

import (
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/charmbracelet/x/conpty"
	"golang.org/x/sys/windows"

	"hostgate/internal/agent/winjob"
)

const maxSize = 32767

func defaultShell() []string {
	if cs := os.Getenv("ComSpec"); cs != "" {
		return []string{cs}
	}
	return []string{"cmd.exe"}
}

// winPTY is a PTY on a Windows pseudo console. Output is copied by a pump
// goroutine into a pipe that Read drains: the pseudo console must be
// drained while it is being closed, and that close is what ends the
// output (conhost closes its end of the pipe), whether or not anyone is
// reading.
type winPTY struct {
	cpty    *conpty.ConPty
	pid     int
	process windows.Handle
	job     windows.Handle
	out     *io.PipeReader
	done    chan struct{} // closed when the process has exited and the console is closed
	code    int
	err     error

	closeOnce sync.Once

	// mu keeps Write and Resize off the console while wait closes it.
	mu            sync.RWMutex
	consoleClosed bool
}

// pump copies the console output to w until the console is closed. Once
// w is closed (the session was closed), it keeps draining into nothing:
// older Windows blocks ClosePseudoConsole until the output is read.
func pump(w *io.PipeWriter, c *conpty.ConPty) {
	buf := make([]byte, 32*1024)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n]) // fails at once after the reader is closed
		}
		if err != nil {
			_ = w.Close()
			return
		}
	}
}

func start(opts Options) (PTY, error) {
	c, err := conpty.New(opts.Cols, opts.Rows, 0)
	if err != nil {
		return nil, err
	}
	attr := &syscall.ProcAttr{
		Dir: opts.Dir,
		Env: opts.Env,
		Sys: &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED},
	}
	pid, h, err := c.Spawn(opts.Command[0], opts.Command, attr)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	proc := windows.Handle(h)
	job, err := winjob.Adopt(proc, uint32(pid))
	if err != nil {
		_ = windows.TerminateProcess(proc, 1)
		_ = windows.CloseHandle(proc)
		_ = c.Close()
		return nil, err
	}
	r, w := io.Pipe()
	p := &winPTY{cpty: c, pid: pid, process: proc, job: job, out: r, done: make(chan struct{})}
	go pump(w, c)
	go p.wait()
	return p, nil
}

// wait waits for the process to exit, ends the rest of the job and closes
// the pseudo console, which flushes the remaining output to the pump and
// then ends it.
func (p *winPTY) wait() {
	_, err := windows.WaitForSingleObject(p.process, windows.INFINITE)
	var code uint32
	if err == nil {
		err = windows.GetExitCodeProcess(p.process, &code)
	}
	p.code, p.err = int(code), err
	_ = windows.TerminateJobObject(p.job, 1)
	p.mu.Lock()
	p.consoleClosed = true
	_ = p.cpty.Close()
	p.mu.Unlock()
	_ = windows.CloseHandle(p.process)
	close(p.done)
}

func (p *winPTY) Read(b []byte) (int, error) { return p.out.Read(b) }

func (p *winPTY) Write(b []byte) (int, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.consoleClosed {
		return 0, os.ErrClosed
	}
	return p.cpty.Write(b)
}

func (p *winPTY) Resize(cols, rows int) error {
	if err := checkSize(cols, rows); err != nil {
		return err
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.consoleClosed {
		return os.ErrClosed
	}
	return p.cpty.Resize(cols, rows)
}

// Close terminates the job, which ends every process of the session, and
// waits until the console is closed. Read then returns io.EOF.
func (p *winPTY) Close() error {
	p.closeOnce.Do(func() {
		_ = p.out.Close()
		_ = windows.TerminateJobObject(p.job, 1)
		<-p.done
		_ = windows.CloseHandle(p.job)
	})
	return nil
}

func (p *winPTY) Wait() (int, error) {
	<-p.done
	return p.code, p.err
}

func (p *winPTY) Pid() int { return p.pid }
