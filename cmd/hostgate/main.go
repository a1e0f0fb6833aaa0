// Command hostgate runs the hostgate hub: the HTTP API, the agent gateway
// and the consoles. Configuration comes from the environment; see
// `hostgate --help` and docs/configuration.md.
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
	"runtime/debug"
	"syscall"

	"hostgate/internal/hub"
)

const usage = `hostgate - remote host control hub

Usage:
  hostgate [serve]                 run the hub (the default)
  hostgate migrate                 apply database migrations and exit
  hostgate backup FILE             copy the embedded SQLite database to FILE (new, 0600),
                                   also while the hub runs; PostgreSQL: use pg_dump
  hostgate admin create --username U --password P --role R
                                   create an admin (roles: owner, operator, finance, viewer)
  hostgate admin disable USERNAME  refuse the admin's sign-in and tokens (within a second)
  hostgate admin enable USERNAME   let a disabled admin sign in again
  hostgate admin set-role USERNAME ROLE
                                   change an admin's role (its sessions end)
  hostgate keys generate           print a new random key (base64 of 32 bytes) for
                                   the key settings below
  hostgate keys reseal             re-seal every stored secret under the current
                                   sealing key (key rotation; runs beside serving hubs)
  hostgate openapi                 print the OpenAPI document the hub serves at
                                   /v1/openapi.json (docs/openapi.json is its output)
  hostgate --help                  this text

Environment:
`

// gcPercent is the hub's GOGC unless the environment sets one. A hub's
// memory is mostly its idle agents' connections, and Go's default of 100
// lets the heap grow to twice what is live before collecting; 50 keeps
// it at one and a half times, about 2 KiB less per agent, for a little
// more collection work under load (docs/performance.md).
const gcPercent = 50

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		// One line naming the setting at fault, secrets blanked.
		fmt.Fprintln(os.Stderr, "hostgate:", hub.Describe(err, os.Getenv))
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage+hub.Help())
		return flag.ErrHelp
	case "openapi":
		// Needs no configuration and opens no store.
		return openapi(args, stdout)
	case "keys":
		if len(args) > 0 && args[0] == "generate" {
			// Needs no configuration: a key for a hub yet to be set up.
			return keysGenerate(args[1:], stdout)
		}
		if len(args) == 0 || args[0] != "reseal" {
			return fmt.Errorf("%s", keysUsage)
		}
	case "serve", "migrate", "admin", "backup":
	default:
		fmt.Fprint(stderr, usage+hub.Help())
		return fmt.Errorf("unknown command %q", cmd)
	}
	cfg, err := hub.Parse(getenv)
	if err != nil {
		return err
	}
	log := newLogger(cfg, stderr)
	switch cmd {
	case "migrate":
		return migrate(ctx, cfg, log, stdout)
	case "admin":
		return adminCommand(ctx, cfg, log, args, stdout, stderr)
	case "backup":
		return backup(ctx, cfg, args, stdout)
	case "keys":
		return keysReseal(ctx, cfg, log, args[1:], stdout)
	}
	log.Info("starting", hub.Masked(getenv)...)
	return hub.Run(ctx, cfg, log, stderr)
}

func newLogger(cfg hub.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
