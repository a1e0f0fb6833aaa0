package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows/svc"

	"hostgate/internal/agent"
	"hostgate/internal/agent/install"
)

// maxLogSize is the size past which agent.log is rotated at start.
const maxLogSize = 10 << 20

// isService reports whether the service control manager started us.
func isService() bool {
	ok, err := svc.IsWindowsService()
	return err == nil && ok
}

// runService runs the agent as a Windows service, logging to agent.log in
// the state directory (a service has no console).
func runService(cfg agent.Config, level slog.Level) error {
	dir, err := agent.PrepareStateDir(cfg.StateDir)
	if err != nil {
		return err
	}
	cfg.StateDir = dir
	logFile, err := openLog(filepath.Join(dir, "agent.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	log := slog.New(slog.NewTextHandler(logFile, &slog.HandlerOptions{Level: level}))
	h := &service{run: func(ctx context.Context) error { return agent.Run(ctx, cfg, log) }}
	if err := svc.Run(install.ServiceName, h); err != nil {
		return fmt.Errorf("service: %w", err)
	}
	if h.err != nil {
		log.Error("agent failed", "err", h.err)
	}
	return h.err
}

// openLog opens path for appending, first moving a large one to path.1.
func openLog(path string) (io.WriteCloser, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogSize {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	return f, nil
}

// service adapts the agent to svc.Handler: Stop and Shutdown cancel the
// agent's context.
type service struct {
	run func(context.Context) error
	err error
}

// Execute implements svc.Handler.
func (s *service) Execute(_ []string, reqs <-chan svc.ChangeRequest, status chan<- svc.Status) (bool, uint32) {
	const accepts = svc.AcceptStop | svc.AcceptShutdown
	status <- svc.Status{State: svc.StartPending}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.run(ctx) }()
	status <- svc.Status{State: svc.Running, Accepts: accepts}
	for {
		select {
		case s.err = <-done:
			return s.exit()
		case c := <-reqs:
			switch c.Cmd {
			case svc.Interrogate:
				status <- c.CurrentStatus
			case svc.Stop, svc.Shutdown:
				status <- svc.Status{State: svc.StopPending, WaitHint: 15000}
				cancel()
				s.err = <-done
				return s.exit()
			}
		}
	}
}

// exit is Execute's result: a service-specific code 1 when the agent failed.
func (s *service) exit() (bool, uint32) {
	if s.err != nil {
		return true, 1
	}
	return false, 0
}
