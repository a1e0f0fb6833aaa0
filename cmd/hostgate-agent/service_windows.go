package main

import (
	"context"
	"errors"
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
	logPath := filepath.Join(dir, "agent.log")
	logFile, err := openLog(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	log := slog.New(slog.NewTextHandler(logFile, &slog.HandlerOptions{Level: level}))
	h := newService(func(ctx context.Context) error { return agent.Run(ctx, cfg, log) }, logPath, log)
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
	// restart starts the process that starts the service named name
	// again, from exe, once it has stopped.
	restart func(exe, name string) error
	log     *slog.Logger
	err     error
}

// newService is the agent service running run. After an upgrade it
// restarts through "restart-service" started from the new executable,
// which logs to logPath.
func newService(run func(context.Context) error, logPath string, log *slog.Logger) *service {
	restart := func(exe, name string) error {
		return startDetached(exe, "restart-service", "--service", name, "--log", logPath)
	}
	return &service{run: run, restart: restart, log: log}
}

// Execute implements svc.Handler.
func (s *service) Execute(args []string, reqs <-chan svc.ChangeRequest, status chan<- svc.Status) (bool, uint32) {
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
			return s.exit(serviceName(args))
		case c := <-reqs:
			switch c.Cmd {
			case svc.Interrogate:
				status <- c.CurrentStatus
			case svc.Stop, svc.Shutdown:
				status <- svc.Status{State: svc.StopPending, WaitHint: 15000}
				cancel()
				s.err = <-done
				return s.exit(serviceName(args))
			}
		}
	}
}

// exit is Execute's result: a service-specific code 1 when the agent
// failed. An agent that stopped to restart first starts the helper that
// will start the service again; when that fails, the exit counts as a
// failure, so the service's recovery actions start it again instead (from
// the new executable, which then confirms or rolls back itself).
func (s *service) exit(name string) (bool, uint32) {
	if re, ok := errors.AsType[*agent.RestartError](s.err); ok {
		if err := s.restart(re.Exe, name); err != nil {
			// Not %w of re: the service must not be restarted as a
			// foreground process.
			s.err = fmt.Errorf("%v: the restart helper did not start: %w", re, err)
			return true, 1
		}
		s.log.Info("service stopping; the restart helper starts it again", "service", name, "exe", re.Exe)
		s.err = nil
	}
	if s.err != nil {
		return true, 1
	}
	return false, 0
}

// serviceName is the name the service manager started this service
// under (its first argument), or the installer's.
func serviceName(args []string) string {
	if len(args) > 0 && args[0] != "" {
		return args[0]
	}
	return install.ServiceName
}
