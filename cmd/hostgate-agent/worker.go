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

// runWorker is the logon worker the installer's scheduled task starts in
// each user's session: it keeps the agent service running (see package
// watchdog) until the session ends. --config is accepted, and ignored, so
// that the task's command line stays valid as the worker grows.
func runWorker(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("hostgate-agent worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.String("config", "", "agent setup `file` (the task passes it)")
	service := fs.String("service", install.ServiceName, "`name` of the agent service to keep running")
	interval := fs.Duration("interval", watchdog.DefaultInterval, "how often the service is checked")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 || *interval <= 0 {
		fmt.Fprintln(stderr, "hostgate-agent worker: unexpected arguments or a non-positive --interval")
		return exitUsage
	}
	svcs, err := watchdog.NewServices()
	if err != nil {
		fmt.Fprintln(stderr, "hostgate-agent worker:", err)
		return exitInternal
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(stderr, nil))
	if err := watchdog.Run(ctx, svcs, *service, *interval, log); err != nil {
		fmt.Fprintln(stderr, "hostgate-agent worker:", err)
		return exitInternal
	}
	return exitOK
}
