package pty

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// shell is an interactive POSIX shell without rc files or a custom prompt.
var shell = []string{"/bin/sh"}

// testEnv keeps the environment small and predictable.
var testEnv = []string{"PATH=/usr/bin:/bin", "TERM=dumb", "PS1=$ ", "ENV="}

func startShell(t *testing.T, opts Options) PTY {
	t.Helper()
	if opts.Command == nil {
		opts.Command = shell
	}
	opts.Env = testEnv
	p, err := Start(opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

var errTimeout = errors.New("timed out")

// readUntil reads p until its output matches re, EOF, or the timeout; it
// returns the output read. A timeout closes p, which ends the read.
func readUntil(t *testing.T, p io.Reader, re *regexp.Regexp, timeout time.Duration) (string, error) {
	t.Helper()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := p.Read(buf)
			out.Write(buf[:n])
			if re != nil && re.Match(out.Bytes()) {
				done <- nil
				return
			}
			if err != nil {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(timeout):
		if c, ok := p.(io.Closer); ok {
			_ = c.Close()
		}
		<-done
		// Errorf, not Fatalf: readUntil also runs in goroutines.
		t.Errorf("no match for %v within %v; output so far %q", re, timeout, out.String())
		return out.String(), errTimeout
	}
}

func write(t *testing.T, p io.Writer, s string) {
	t.Helper()
	if _, err := io.WriteString(p, s); err != nil {
		t.Fatalf("write %q: %v", s, err)
	}
}

func TestEcho(t *testing.T) {
	p := startShell(t, Options{})
	// The quotes keep the echoed input from matching: only the output does.
	write(t, p, "echo he''llo\n")
	if _, err := readUntil(t, p, regexp.MustCompile(`hello\r\n`), 5*time.Second); err != nil {
		t.Fatalf("read: %v", err)
	}
}

func TestResize(t *testing.T) {
	p := startShell(t, Options{Cols: 80, Rows: 24})
	if err := p.Resize(123, 45); err != nil {
		t.Fatalf("Resize: %v", err)
	}
	write(t, p, "stty size\n")
	if _, err := readUntil(t, p, regexp.MustCompile(`45 123\r\n`), 5*time.Second); err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := p.Resize(0, 10); !errors.Is(err, ErrInvalidSize) {
		t.Errorf("Resize(0, 10) = %v, want ErrInvalidSize", err)
	}
}

func TestExitEndsOutputWithEOF(t *testing.T) {
	p := startShell(t, Options{})
	write(t, p, "echo bye''bye; exit 3\n")
	out, err := readUntil(t, p, nil, 5*time.Second)
	if err != io.EOF {
		t.Fatalf("read ended with %v, want io.EOF; output %q", err, out)
	}
	if !strings.Contains(out, "byebye\r\n") {
		t.Errorf("output %q lacks the last output before exit", out)
	}
	if code, err := p.Wait(); code != 3 || err != nil {
		t.Errorf("Wait = %d, %v; want 3, nil", code, err)
	}
}

// TestExitEndsBackgroundJobs: the session ends with the shell, even when
// a background job holds the terminal.
func TestExitEndsBackgroundJobs(t *testing.T) {
	p := startShell(t, Options{})
	write(t, p, "sleep 300 & echo pid=$!; exit\n")
	out, err := readUntil(t, p, nil, 5*time.Second)
	if err != io.EOF {
		t.Fatalf("read ended with %v, want io.EOF; output %q", err, out)
	}
	awaitGone(t, pidIn(t, out))
}

func TestCloseKillsChildIgnoringHUP(t *testing.T) {
	p := startShell(t, Options{})
	// Started from the interactive shell, the child runs in a process
	// group of its own (job control), in the same session.
	write(t, p, `sh -c 'trap "" HUP; exec sleep 300' & echo pid=$!`+"\n")
	out, _ := readUntil(t, p, regexp.MustCompile(`pid=\d+\r\n`), 5*time.Second)
	pid := pidIn(t, out)
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("child %d not running before Close: %v", pid, err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	awaitGone(t, pid)
	if _, err := p.Wait(); err != nil {
		t.Errorf("Wait after Close: %v", err)
	}
}

func pidIn(t *testing.T, out string) int {
	t.Helper()
	m := regexp.MustCompile(`pid=(\d+)\r\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no pid in output %q", out)
	}
	pid, _ := strconv.Atoi(m[1])
	return pid
}

// awaitGone waits until pid no longer exists or is a zombie (its parent,
// killed too, no longer reaps it; init will).
func awaitGone(t *testing.T, pid int) {
	t.Helper()
	var st byte
	if !eventually.Within(5*time.Second, func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		var ok bool
		st, _, _, ok = parseStat(b)
		return ok && (st == 'Z' || st == 'X')
	}) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("process %d still running (state %c)", pid, st)
	}
}

func TestParseStat(t *testing.T) {
	st, pgrp, sess, ok := parseStat([]byte("42 (a) b)) S 1 40 41 0 -1"))
	if !ok || st != 'S' || pgrp != 40 || sess != 41 {
		t.Errorf("parseStat = %c %d %d %v", st, pgrp, sess, ok)
	}
	if _, _, _, ok := parseStat([]byte("42 no paren")); ok {
		t.Error("parseStat accepted a line without ')'")
	}
}

func TestManagerIdleTimeout(t *testing.T) {
	m := NewManager(Config{IdleTimeout: 200 * time.Millisecond})
	t.Cleanup(m.CloseAll)
	s, err := m.Open(Options{Command: shell, Env: testEnv})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	pid := s.Pid()
	exited := make(chan struct{})
	go func() { _, _ = s.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("idle session not closed within 5s")
	}
	if _, ok := m.Get(s.ID()); ok {
		t.Error("closed session still in the manager")
	}
	awaitGone(t, pid)
}

func TestManagerActivityKeepsSession(t *testing.T) {
	m := NewManager(Config{IdleTimeout: 300 * time.Millisecond})
	t.Cleanup(m.CloseAll)
	s, err := m.Open(Options{Command: shell, Env: testEnv})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	for i := range 6 {
		write(t, s, fmt.Sprintf("echo t''%d\n", i))
		readUntil(t, s, regexp.MustCompile(fmt.Sprintf(`t%d\r\n`, i)), 5*time.Second)
		// Time passing, not a wait: the six rounds of activity must outlast
		// the idle timeout, and the manager's idle clock is the wall clock.
		time.Sleep(100 * time.Millisecond)
	}
	if _, ok := m.Get(s.ID()); !ok {
		t.Fatal("active session was closed")
	}
}

func TestManagerConcurrentSessions(t *testing.T) {
	const n = 50
	m := NewManager(Config{MaxSessions: n, IdleTimeout: -1})
	t.Cleanup(m.CloseAll)
	ss := make([]*Session, n)
	for i := range ss {
		s, err := m.Open(Options{Command: shell, Env: testEnv})
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
		ss[i] = s
	}
	if _, err := m.Open(Options{Command: shell, Env: testEnv}); !errors.Is(err, ErrTooManySessions) {
		t.Fatalf("Open beyond the cap = %v, want ErrTooManySessions", err)
	}
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Go(func() {
			write(t, s, fmt.Sprintf("echo s''%d; exit\n", i))
			out, err := readUntil(t, s, nil, 20*time.Second)
			if err != io.EOF || !strings.Contains(out, fmt.Sprintf("s%d\r\n", i)) {
				t.Errorf("session %d: %v, output %q", i, err, out)
			}
			_ = s.Close()
		})
	}
	wg.Wait()
	if got := m.Len(); got != 0 {
		t.Errorf("Len after closing all = %d", got)
	}
}

func TestManagerCloseAll(t *testing.T) {
	m := NewManager(Config{})
	var pids []int
	for range 3 {
		s, err := m.Open(Options{Command: shell, Env: testEnv})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		pids = append(pids, s.Pid())
	}
	m.CloseAll()
	for _, pid := range pids {
		awaitGone(t, pid)
	}
	if _, err := m.Open(Options{Command: shell}); !errors.Is(err, ErrManagerClosed) {
		t.Errorf("Open after CloseAll = %v, want ErrManagerClosed", err)
	}
}
