// Command hostgate-fleet simulates a fleet of agents for load tests
// (docs/fleet.md):
//
//	hostgate-fleet provision --count N --out fleet.jsonl   # hub's env config, as `hostgate`
//	hostgate-fleet run --creds fleet.jsonl --duration 10m [--from I --to J] [--sources 8]
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"hostgate/internal/fleet"
	"hostgate/internal/hub"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "hostgate-fleet:", err)
		os.Exit(1)
	}
}

const usage = "usage: hostgate-fleet provision --count N --out FILE | run --creds FILE --duration D"

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "provision":
		return provision(ctx, args[1:], getenv, stdout, stderr)
	case "run":
		return runFleet(ctx, args[1:], stdout, stderr)
	}
	return errors.New(usage)
}

// provision creates a user and count hosts with install credentials in the
// hub's store (the hub's own environment configuration), and writes the
// credentials, one JSON object a line.
func provision(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("provision", flag.ContinueOnError)
	fs.SetOutput(stderr)
	count := fs.Int("count", 1000, "hosts to create")
	out := fs.String("out", "fleet.jsonl", "credentials file to write")
	owner := fs.String("owner-id", "", "user to own the hosts (default: a new user)")
	workers := fs.Int("workers", 8, "hosts created at once")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *count < 1 || *count > 200000 {
		return errors.New("--count must be 1..200000")
	}
	cfg, err := hub.Parse(getenv)
	if err != nil {
		return err
	}
	h, err := hub.Open(ctx, cfg, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		return err
	}
	defer h.Close()
	if *owner == "" {
		email := fmt.Sprintf("fleet-%d@example.com", time.Now().UnixNano())
		a, err := h.Accounts.Register(ctx, email, rand.Text())
		if err != nil {
			return err
		}
		*owner = a.User.ID
	}
	start := time.Now()
	creds, err := fleet.Provision(ctx, h.Hosts, *owner, *count, *workers)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(*out, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if err := fleet.WriteCredentials(f, creds); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]any{"owner_id": *owner, "hosts": len(creds), "out": *out,
		"took_ms": time.Since(start).Milliseconds()})
}

// maxDuration bounds a run: load tests stop by themselves.
const maxDuration = 2 * time.Hour

func runFleet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	credsFile := fs.String("creds", "fleet.jsonl", "credentials file from provision")
	from := fs.Int("from", 0, "first line of the file to use (0-based)")
	to := fs.Int("to", -1, "line after the last to use (-1: to the end)")
	sources := fs.Int("sources", 8, "loopback source addresses to dial from: 127.0.0.2 … (0: the default)")
	ramp := fs.Int("ramp", 500, "agents started per second")
	handshakes := fs.Int("handshakes", 64, "enrolments and handshakes in flight")
	duration := fs.Duration("duration", 0, "how long to run (required, at most 2h)")
	every := fs.Duration("every", 5*time.Second, "interval of the JSON status lines")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *duration <= 0 || *duration > maxDuration {
		return errors.New("--duration must be set, at most 2h")
	}
	f, err := os.Open(*credsFile)
	if err != nil {
		return err
	}
	creds, err := fleet.ReadCredentials(f)
	f.Close()
	if err != nil {
		return err
	}
	if *to < 0 || *to > len(creds) {
		*to = len(creds)
	}
	if *from < 0 || *from >= *to {
		return fmt.Errorf("--from %d --to %d selects no credentials of %d", *from, *to, len(creds))
	}
	creds = creds[*from:*to]
	if limit, err := raiseFileLimit(); err == nil && uint64(len(creds))+64 > limit {
		fmt.Fprintf(stderr, "hostgate-fleet: %d agents need more files than the limit of %d\n", len(creds), limit)
	}
	var ips []net.IP
	for i := range *sources {
		ips = append(ips, net.IPv4(127, 0, byte((i+2)>>8), byte((i+2)&0xff)))
	}
	fl := fleet.New(fleet.Config{Sources: ips, Ramp: *ramp, Handshakes: *handshakes}, creds)
	ctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); _ = fl.Run(ctx) }()
	enc := json.NewEncoder(stdout)
	tick := time.NewTicker(*every)
	defer tick.Stop()
	reported := false
	for {
		select {
		case <-done:
			return enc.Encode(map[string]any{"event": "stopped", "stats": fl.Stats()})
		case <-tick.C:
			s := fl.Stats()
			event := "status"
			if s.AllConnectedMs > 0 && !reported {
				event, reported = "all_connected", true
			}
			_ = enc.Encode(map[string]any{"event": event, "stats": s})
		}
	}
}
