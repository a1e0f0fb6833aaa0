// Package watchdog is the agent's logon worker: it runs in a logged-on
// user's session (started by the logon task the installer creates) and
// keeps the agent service running, starting it when it is found stopped.
// The service's recovery actions cover crashes; the watchdog covers a
// service that was stopped, or was installed but not yet started (the
// template installer leaves it for the next boot). Restart, on the same
// service-manager code, brings back the agent service after it stopped
// itself to restart into an upgraded executable.
package watchdog

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// ErrUnsupported is returned where there is no service manager to watch.
var ErrUnsupported = errors.New("watchdog: the service watchdog runs on Windows only")

// Services is the part of the service manager the watchdog uses.
type Services interface {
	// Running reports whether the named service is running or about to.
	Running(name string) (bool, error)
	// Stopped reports whether the named service has stopped (not merely
	// been asked to).
	Stopped(name string) (bool, error)
	// Start asks the service manager to start the named service.
	Start(name string) error
}

// DefaultInterval is how often the service is checked.
const DefaultInterval = 30 * time.Second

// Run checks the service at once and then every interval until ctx ends,
// starting it when it is not running. Failures are logged and retried at
// the next check (a user without the right to start services only gets a
// log line per failure streak, not one per check).
func Run(ctx context.Context, svcs Services, name string, interval time.Duration, log *slog.Logger) error {
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	failing := false
	for {
		err := check(svcs, name, log)
		switch {
		case err != nil && !failing:
			log.Warn("watchdog: service check failed", "service", name, "err", err)
		case err == nil && failing:
			log.Info("watchdog: service check recovered", "service", name)
		}
		failing = err != nil
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// check starts the service if it is not running.
func check(svcs Services, name string, log *slog.Logger) error {
	running, err := svcs.Running(name)
	if err != nil || running {
		return err
	}
	if err := svcs.Start(name); err != nil {
		return err
	}
	log.Info("watchdog: started stopped service", "service", name)
	return nil
}
