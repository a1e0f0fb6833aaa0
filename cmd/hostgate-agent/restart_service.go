package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"hostgate/internal/agent/install"
	"hostgate/internal/agent/watchdog"
)

// runRestartService is the helper the agent service starts, from the new
// executable, just before it stops to restart after an upgrade: a service
// cannot start itself again, so this process waits until the service has
// stopped, starts it, waits until it runs, and exits (package watchdog).
func runRestartService(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("hostgate-agent restart-service", flag.ContinueOnError)
	fs.SetOutput(stderr)
	service := fs.String("service", install.ServiceName, "`name` of the service to restart")
	logPath := fs.String("log", "", "append the log to `file` (default stderr)")
	wait := fs.Duration("wait", watchdog.DefaultRestartWait, "how long to wait for the service to stop, then to run")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 || *wait <= 0 {
		fmt.Fprintln(stderr, "hostgate-agent restart-service: unexpected arguments or a non-positive --wait")
		return exitUsage
	}
	out := stderr
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintln(stderr, "hostgate-agent restart-service:", err)
			return exitInternal
		}
		defer f.Close()
		out = f
	}
	log := slog.New(slog.NewTextHandler(out, nil)).With("helper", "restart-service")
	svcs, err := watchdog.NewServices()
	if err != nil {
		log.Error("restart failed", "err", err)
		return exitInternal
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := watchdog.Restart(ctx, svcs, *service, *wait, log); err != nil {
		log.Error("restart failed", "service", *service, "err", err)
		return exitInternal
	}
	return exitOK
}
