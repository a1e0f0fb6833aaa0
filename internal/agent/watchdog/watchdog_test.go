package watchdog

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServices is a service manager with one service.
type fakeServices struct {
	mu       sync.Mutex
	running  bool
	queryErr error
	startErr error
	starts   int
	checks   chan struct{}
}

// Running reports each check on f.checks after releasing the lock, so a
// test blocked in set never waits on a watchdog blocked in the send.
func (f *fakeServices) Running(string) (bool, error) {
	f.mu.Lock()
	running, err := f.running, f.queryErr
	f.mu.Unlock()
	f.checks <- struct{}{}
	return running, err
}

func (f *fakeServices) Stopped(string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.running, f.queryErr
}

func (f *fakeServices) Start(string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.starts++
	if f.startErr != nil {
		return f.startErr
	}
	f.running = true
	return nil
}

func (f *fakeServices) set(fn func(*fakeServices)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// runChecks runs the watchdog until it has made n checks.
func runChecks(t *testing.T, f *fakeServices, n int) string {
	t.Helper()
	var logBuf syncBuffer
	log := slog.New(slog.NewTextHandler(&logBuf, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, f, "hostgate-agent", time.Millisecond, log) }()
	for range n {
		select {
		case <-f.checks:
		case <-time.After(10 * time.Second):
			t.Fatal("watchdog stopped checking")
		}
	}
	cancel()
	// Drain a check that raced with the cancellation.
	for {
		select {
		case <-f.checks:
			continue
		case err := <-done:
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			return logBuf.String()
		}
	}
}

func TestStartsStoppedServiceOnce(t *testing.T) {
	f := &fakeServices{checks: make(chan struct{})}
	log := runChecks(t, f, 3)
	if f.starts != 1 {
		t.Fatalf("starts = %d, want 1 (started once, then found running)", f.starts)
	}
	if !strings.Contains(log, "started stopped service") {
		t.Fatalf("log lacks the start: %s", log)
	}
}

func TestLeavesRunningServiceAlone(t *testing.T) {
	f := &fakeServices{running: true, checks: make(chan struct{})}
	runChecks(t, f, 3)
	if f.starts != 0 {
		t.Fatalf("starts = %d, want 0", f.starts)
	}
}

func TestFailureStreakIsLoggedOnceAndRecovers(t *testing.T) {
	f := &fakeServices{startErr: errors.New("access denied"), checks: make(chan struct{})}
	var logBuf syncBuffer
	log := slog.New(slog.NewTextHandler(&logBuf, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, f, "svc", time.Millisecond, log) }()
	for range 5 {
		<-f.checks
	}
	f.set(func(f *fakeServices) { f.startErr = nil })
	for range 3 {
		<-f.checks
	}
	cancel()
	go func() {
		for range f.checks {
		}
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out := logBuf.String()
	if n := strings.Count(out, "service check failed"); n != 1 {
		t.Fatalf("failure logged %d times, want once per streak:\n%s", n, out)
	}
	if !strings.Contains(out, "recovered") || !strings.Contains(out, "access denied") {
		t.Fatalf("log lacks the error or the recovery:\n%s", out)
	}
	if f.starts < 5 {
		t.Fatalf("starts = %d: a failing start must be retried at every check", f.starts)
	}
}

func TestQueryErrorIsNotAStart(t *testing.T) {
	f := &fakeServices{queryErr: errors.New("no such service"), checks: make(chan struct{})}
	runChecks(t, f, 2)
	if f.starts != 0 {
		t.Fatalf("starts = %d: an unreadable state must not trigger a start", f.starts)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
