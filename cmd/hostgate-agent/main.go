// Command hostgate-agent runs the hostgate agent on a managed host: it
// enrols with the hub, keeps a WebSocket to it and serves its commands.
//
//	hostgate-agent run [--config FILE] [--host-id ID --bid N --secret-key K
//	    --install-token T --agent-privkey-seed S --agent-pubkey P
//	    --ws-url URL --api-endpoint URL --state-dir DIR --report-url URL
//	    --l1-listen ADDR] [--log-level L]
//	hostgate-agent version
//	hostgate-agent worker [--config FILE] [--service NAME] [--interval D]
//	hostgate-agent restart-service [--service NAME] [--log FILE] [--wait D]
//	hostgate-agent install --config FILE|- [--prefix DIR] [--state-dir DIR]
//	    [--service auto|systemd|detached]
//	hostgate-agent --install-template --setup-from FILE|- [--listen-port N] [--state-dir DIR]
//	hostgate-agent --install-template --host-id ID --bid N --secret-key K
//	    --install-token T --agent-privkey-seed S --agent-pubkey P
//	    --ws-url URL --api-endpoint URL [--listen-port N] [--state-dir DIR]
//	hostgate-agent first-boot [--variant simple|autologon] [--source SOURCE]
//	    [--timeout D] [--default-api-endpoint URL] [--state-dir DIR]
//
// The --install-template form (Windows) installs the agent on a machine
// cloned from a template image, and install (Linux) installs it as a
// systemd service; both have their own exit codes (package
// internal/agent/install). first-boot installs a machine made from a
// template image from the provisioning payload in its cloud user data
// (package internal/agent/firstboot, docs/provisioning.md), with the
// spec's installer-script exit codes.
//
// Flags override the JSON config file. Under the Windows service control
// manager it runs as a service; elsewhere it runs in the foreground until
// SIGINT or SIGTERM. After an upgrade (agent.upgrade) it restarts into the
// new executable: on Unix by exec, keeping its pid; on Windows as a new
// process, or through restart-service for the service. Exit codes: 0 ok,
// 1 internal error, 2 usage. See docs/agent.md.
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
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"hostgate/internal/agent"
	"hostgate/internal/agent/firstboot"
	"hostgate/internal/agent/install"
	"hostgate/internal/agentproto"
)

// Exit codes.
const (
	exitOK       = 0
	exitInternal = 1
	exitUsage    = 2
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage:
  hostgate-agent run [--config FILE] [flags]   run the agent
  hostgate-agent version                       print the version
  hostgate-agent worker [--config FILE]        keep the agent service running (Windows logon task)
  hostgate-agent restart-service [--service N] start the agent service again once it has stopped
                                               (Windows; the service starts it after an upgrade)
  hostgate-agent install --config FILE|-       install on Linux as a systemd service (see install --help)
  hostgate-agent --install-template [flags]    install on Windows (see --install-template --help)
  hostgate-agent first-boot [flags]            install from the cloud user data at first boot
                                               (template images; see first-boot --help)
Run "hostgate-agent run --help" for the flags.
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		// Double-clicked single-file installer: install from the payload.
		if self, err := os.Executable(); err == nil {
			pargs, err := payloadArgs(self)
			if err == nil {
				return installFromPayload(self, pargs, stdout, stderr, elevated(), relaunchElevated)
			}
			if !errors.Is(err, agentproto.ErrNoPayload) {
				// A single-file installer whose payload is refused says why,
				// rather than printing the usage of a plain executable.
				fmt.Fprintln(stderr, "hostgate-agent: this installer's provisioning payload is not valid:", err)
				fmt.Fprintln(stderr, "download the installer again from the hub (the host's page, or GET /v1/api/hosts/{id}/installer)")
				return exitInternal
			}
		}
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return runAgent(args[1:], stderr)
	case "worker":
		return runWorker(args[1:], stderr)
	case "restart-service":
		return runRestartService(args[1:], stderr)
	case "--install-template":
		return install.Main(args[1:], stdout, stderr)
	case "install":
		return install.LinuxMain(args[1:], os.Stdin, stdout, stderr)
	case "first-boot":
		return firstboot.Main(args[1:], stdout, stderr)
	case "version":
		fmt.Fprintf(stdout, "hostgate-agent %s (%s, %s/%s)\n", agent.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return exitOK
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "unknown command %q\n%s", args[0], usage)
	return exitUsage
}

func runAgent(args []string, stderr io.Writer) int {
	cfg, level, err := parseRun(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "hostgate-agent:", err)
		return exitUsage
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(stderr, "hostgate-agent:", err)
		return exitUsage
	}
	if isService() {
		err = runService(cfg, level) // restarts through its helper
	} else {
		err = runForeground(cfg, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})))
		if re, ok := errors.AsType[*agent.RestartError](err); ok {
			return restart(re, stderr)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "hostgate-agent:", err)
		if errors.Is(err, agent.ErrInvalidConfig) {
			return exitUsage
		}
		return exitInternal
	}
	return exitOK
}

// runForeground runs until SIGINT or SIGTERM.
func runForeground(cfg agent.Config, log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return agent.Run(ctx, cfg, log)
}

// parseRun reads the run flags and the config file they name; flags that
// were given override the file.
func parseRun(args []string, stderr io.Writer) (agent.Config, slog.Level, error) {
	fs := flag.NewFlagSet("hostgate-agent run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f agentproto.Setup
	configPath := fs.String("config", "", "JSON config `file` (snake_case keys as the flags)")
	logLevel := fs.String("log-level", "info", "log `level`: debug, info, warn or error")
	agentproto.RegisterFlags(fs, &f, map[string]string{
		"state-dir": "state `directory` (default " + agent.DefaultStateDir() + ")",
		"upgrade-confirm-timeout": "after an upgrade, how long the new version waits for the hub before it rolls back (default " +
			agent.DefaultUpgradeConfirmTimeout.String() + ")",
	})
	if err := fs.Parse(args); err != nil {
		return agent.Config{}, 0, err
	}
	if fs.NArg() > 0 {
		return agent.Config{}, 0, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return agent.Config{}, 0, fmt.Errorf("--log-level: %w", err)
	}
	merged := agentproto.Setup{}
	if *configPath != "" {
		var err error
		if merged, err = readConfigFile(*configPath); err != nil {
			return agent.Config{}, 0, err
		}
	}
	agentproto.Override(fs, &merged, f)
	cfg := agent.ConfigFrom(merged)
	var err error
	if cfg.HeartbeatOverride, err = agent.ParseHeartbeat(os.Getenv(agent.HeartbeatEnv)); err != nil {
		return agent.Config{}, 0, err
	}
	cfg.SettingsFile, err = settingsFile(fs, *configPath)
	if *configPath != "" && err == nil {
		// Key protection seals the file's plaintext seed at start.
		cfg.SetupFile, err = filepath.Abs(*configPath)
	}
	return cfg, level, err
}

// settingsFile is where settings.update saves the L1 settings: the config
// file when they come from it. When there is none, or a flag overrides
// one of them (and would override the file again at the next start), it
// is "": the agent keeps them in settings.json in its state directory,
// which overrides the flags at start.
func settingsFile(fs *flag.FlagSet, configPath string) (string, error) {
	if configPath == "" {
		return "", nil
	}
	overridden := false
	fs.Visit(func(fl *flag.Flag) {
		overridden = overridden || fl.Name == "bid" || fl.Name == "secret-key" || fl.Name == "report-url"
	})
	if overridden {
		return "", nil
	}
	abs, err := filepath.Abs(configPath)
	if err != nil {
		return "", fmt.Errorf("--config: %w", err)
	}
	return abs, nil
}

func readConfigFile(path string) (agentproto.Setup, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return agentproto.Setup{}, fmt.Errorf("config file: %w", err)
	}
	// Unknown keys are allowed, so the hub's install credentials (which
	// carry more fields) can serve as the file as they are.
	f, err := agentproto.ParseSetup(b)
	if err != nil {
		return agentproto.Setup{}, fmt.Errorf("config file %s: %w", path, err)
	}
	return f, nil
}
