package watchdog

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// stoppingService is a running service that stops by itself after some
// checks, as the agent service does when it restarts after an upgrade.
type stoppingService struct {
	mu         sync.Mutex
	stopAfter  int  // Stopped calls before it has stopped; -1: never
	staysDown  bool // Start succeeds but it never runs
	startErr   error
	checks     int
	starts     int
	startEarly bool // Start came while it still ran
	running    bool
}

func newStopping(stopAfter int) *stoppingService {
	return &stoppingService{stopAfter: stopAfter, running: true}
}

func (s *stoppingService) Stopped(string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checks++
	if s.starts == 0 && s.stopAfter >= 0 && s.checks > s.stopAfter {
		s.running = false
	}
	return !s.running, nil
}

func (s *stoppingService) Running(string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running, nil
}

func (s *stoppingService) Start(string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts++
	s.startEarly = s.startEarly || s.running
	if s.startErr != nil {
		return s.startErr
	}
	s.running = !s.staysDown
	return nil
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestRestartWaitsForTheStopThenStarts(t *testing.T) {
	t.Parallel()
	s := newStopping(3)
	if err := Restart(t.Context(), s, "svc", 10*time.Second, discard()); err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if s.starts != 1 || s.startEarly || !s.running {
		t.Errorf("starts %d, early %v, running %v; want one start after the stop", s.starts, s.startEarly, s.running)
	}
}

func TestRestartFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    *stoppingService
		want string
	}{
		{"never stops", newStopping(-1), "service svc did not stop: not within 500ms"},
		{"start refused", &stoppingService{startErr: errors.New("access denied")}, "access denied"},
		{"never runs", &stoppingService{staysDown: true}, "service svc did not start: not within 500ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Restart(t.Context(), tt.s, "svc", 500*time.Millisecond, discard())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Restart: %v, want an error containing %q", err, tt.want)
			}
			if tt.s.startEarly {
				t.Error("started before the service had stopped")
			}
		})
	}
}

func TestRestartStopsWithItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := Restart(ctx, newStopping(-1), "svc", time.Minute, discard())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Restart with a cancelled context: %v", err)
	}
}
