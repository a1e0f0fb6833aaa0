package watchdog

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// DefaultRestartWait bounds each of Restart's waits: for the service to
// stop, then for it to run.
const DefaultRestartWait = 2 * time.Minute

// restartPoll is how often Restart looks at the service.
const restartPoll = 200 * time.Millisecond

// Restart brings back a service that is stopping itself: it waits until
// the named service has stopped, starts it and waits until it runs, each
// wait bounded by wait. A service cannot do this for itself: the service
// manager does not start a service that still runs, and its recovery
// actions are only for failures. So the agent service, when it stops to
// restart into an upgraded executable, first starts this in a separate
// process ("hostgate-agent restart-service").
func Restart(ctx context.Context, svcs Services, name string, wait time.Duration, log *slog.Logger) error {
	if err := waitFor(ctx, wait, func() (bool, error) { return svcs.Stopped(name) }); err != nil {
		return fmt.Errorf("service %s did not stop: %w", name, err)
	}
	// Start counts "already running" as success: a logon watchdog may
	// have been quicker.
	if err := svcs.Start(name); err != nil {
		return err
	}
	if err := waitFor(ctx, wait, func() (bool, error) { return svcs.Running(name) }); err != nil {
		return fmt.Errorf("service %s did not start: %w", name, err)
	}
	log.Info("restart: service started again", "service", name)
	return nil
}

// waitFor polls cond until it holds, ctx ends or limit passes. A failing
// query is retried; the last error is reported if time runs out.
func waitFor(ctx context.Context, limit time.Duration, cond func() (bool, error)) error {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(restartPoll)
	defer tick.Stop()
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			if last != nil {
				return fmt.Errorf("not within %s (last error: %w)", limit, last)
			}
			return fmt.Errorf("not within %s", limit)
		case <-tick.C:
		}
	}
}
