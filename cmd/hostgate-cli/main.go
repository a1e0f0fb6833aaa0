// Command hostgate-cli is a command-line client of the hostgate client API
// (/v1/api/*), built on the Go SDK (sdk/go); docs/cli.md describes it:
//
//	hostgate-cli hosts list
//	hostgate-cli shell web-1 -- uname -a
//	hostgate-cli term web-1
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	hostgate "hostgate/sdk/go"
)

// version is stamped by the Makefile (-X main.version=…).
var version = "dev"

// Exit statuses of the CLI itself; shell and term pass the remote
// program's status through instead.
const (
	exitOK     = 0
	exitFailed = 1 // an API error, or the hub not reachable
	exitUsage  = 2 // bad arguments, or no configuration
	// exitJobIncomplete: jobs run --follow, jobs wait, jobs retry --follow:
	// the job ended and not every host succeeded.
	exitJobIncomplete = 3
	exitTimedOut      = 124 // shell: the remote program was killed at --timeout-s
	exitInterrupted   = 130 // SIGINT or SIGTERM during a call
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], osEnv())
	stop()
	os.Exit(code)
}

// env is the world the CLI runs in; tests replace every part.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	home           func() (string, error)
	// stdinTerminal reports whether stdin is a terminal (hosts delete
	// asks for confirmation only then).
	stdinTerminal func() bool
	// console is the local terminal of term.
	console console
	// stderrTerminal reports whether stderr is a terminal (jobs --follow
	// then rewrites its count line in place); nil: not one.
	stderrTerminal func() bool
	// httpClient, if set, makes the calls (tests); nil: the SDK's.
	httpClient *http.Client
}

func (e env) stderrIsTerminal() bool { return e.stderrTerminal != nil && e.stderrTerminal() }

func osEnv() env {
	return env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, home: os.UserHomeDir,
		stdinTerminal: func() bool { return isTerminal(os.Stdin) }, console: osConsole{},
		stderrTerminal: func() bool { return isTerminal(os.Stderr) }}
}

// app is one invocation: the global options and the client they give.
type app struct {
	env
	json    bool
	timeout time.Duration
	client  *hostgate.Client
	// charged totals what the command's calls cost, printed on stderr
	// once it ends.
	charged charges
}

const usageText = `usage: hostgate-cli [global flags] COMMAND [ARGS]

commands:
  hosts list [--tag K=V ...] [--filter FILTER] [--q TEXT] [--status S]
        [--online yes|no] [--os OS] [--agent-version V]
  hosts create NAME [--listen-port N] [--credentials]
  hosts show HOST
  hosts delete HOST [--yes]
  hosts credentials HOST [--rotate]
  hosts installer HOST [--format exe|ps1|cmd] [-o FILE]
  hosts provisioning-payload HOST [--autologon-user U]
        [--autologon-password P|- | --autologon-generate] [-o FILE]
  shell HOST [--timeout-s N] -- PROGRAM [ARGS...]
  read HOST PATH
  term HOST
  deliveries HOST [--limit N] [--follow] [--interval D]
  jobs run TARGET [OPTIONS] [--dry-run] [--follow] -- PROGRAM [ARGS...]
        TARGET: --tag K=V ... | --host HOST ... | --filter FILTER
        OPTIONS: [--name N] [--offline skip|queue] [--expires D]
        [--concurrency N] [--wave-size N [--wave-pause D]
        [--stop-if-failed PCT]] [--notify-url URL] [--timeout-s N];
        --raw JSON instead of -- PROGRAM [ARGS...]
  jobs list [--state S] [--limit N] [--offset N]
  jobs show|wait|cancel JOB
  jobs retry JOB [--state S ...] [--follow]
  jobs results JOB [--state S]
  jobs output JOB HOST
  tags set HOST [KEY=VALUE ...]
  tags add KEY=VALUE ... --host HOST ...
  tags remove KEY ... --host HOST ...
  tags list
  filters list
  filters create NAME [--tag K=V ...] [--q TEXT] [--status S]
        [--online yes|no] [--os OS] [--agent-version V]
  filters delete FILTER
  schedules list
  schedules create NAME (--cron EXPR [--timezone TZ] | --at TIME)
        [--paused] TARGET [OPTIONS] -- PROGRAM [ARGS...]
  schedules pause|resume|delete|runs SCHEDULE
  webhook-secret show|rotate
  completion bash|zsh|fish
  version

HOST is a host id or a host's unique name.

global flags (before COMMAND):
  --url URL        the hub (env HOSTGATE_URL)
  --api-key KEY    an API key, ak_<id>.<secret> (env HOSTGATE_API_KEY)
  --config FILE    JSON {"url": ..., "api_key": ...} (env HOSTGATE_CONFIG;
                   default $XDG_CONFIG_HOME/hostgate/config.json, else
                   ~/.config/hostgate/config.json)
  --json           JSON output for scripts
  --timeout D      how long each call to the hub may take beyond the time
                   the operation is asked to run (default 30s; 0: no limit)

jobs run --follow and jobs wait exit 3 when not every host succeeded.

A command whose calls the hub charges ends with "charged N tokens, balance
B" on stderr (docs/billing.md).

See docs/cli.md.
`

// run executes one command line and returns the exit status.
func run(ctx context.Context, args []string, e env) int {
	a := &app{env: e}
	fs := flag.NewFlagSet("hostgate-cli", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	url := fs.String("url", "", "")
	key := fs.String("api-key", "", "")
	cfgFile := fs.String("config", "", "")
	fs.BoolVar(&a.json, "json", false, "")
	fs.DurationVar(&a.timeout, "timeout", 30*time.Second, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, usageText)
			return exitOK
		}
		return a.fail(ctx, usageErr(err.Error(), ""))
	}
	if fs.NArg() == 0 {
		return a.fail(ctx, usageErr("no command", ""))
	}
	cmd, rest := fs.Arg(0), fs.Args()[1:]
	switch cmd {
	case "help":
		fmt.Fprint(e.stdout, usageText)
		return exitOK
	case "version":
		return a.fail(ctx, a.version(rest))
	case "completion":
		return a.fail(ctx, a.completion(rest))
	}
	h, ok := handlers[cmd]
	if !ok {
		return a.fail(ctx, usageErr(fmt.Sprintf("unknown command %q", cmd), ""))
	}
	cfg, err := loadConfig(*url, *key, *cfgFile, e)
	if err != nil {
		return a.fail(ctx, err)
	}
	if plainHTTP(cfg.url) {
		fmt.Fprintf(e.stderr, "hostgate-cli: warning: the hub connection is not encrypted (http://); the API key goes in clear text to %s; use https:// outside tests\n", hubHost(cfg.url))
	}
	opts := []hostgate.Option{hostgate.WithChargeHook(a.charged.note)}
	if e.httpClient != nil {
		opts = append(opts, hostgate.WithHTTPClient(e.httpClient))
	}
	a.client = hostgate.New(cfg.url, cfg.key, opts...)
	err = h(a, ctx, rest)
	// What the command cost, before any error: the error stays the last
	// line, as scripts read it (docs/cli.md).
	if line := a.charged.line(a.json); line != "" {
		fmt.Fprintln(a.stderr, line)
	}
	return a.fail(ctx, err)
}

// handlers are the commands that call the hub.
var handlers = map[string]func(*app, context.Context, []string) error{
	"hosts":          (*app).hosts,
	"shell":          (*app).shell,
	"read":           (*app).read,
	"term":           (*app).term,
	"deliveries":     (*app).deliveries,
	"jobs":           (*app).jobs,
	"tags":           (*app).tags,
	"filters":        (*app).filters,
	"schedules":      (*app).schedules,
	"webhook-secret": (*app).webhookSecret,
}

func (a *app) version(args []string) error {
	if len(args) > 0 {
		return usageErr("version takes no arguments", "hostgate-cli version")
	}
	if a.json {
		return a.printJSON(map[string]string{"version": version, "go": runtime.Version(), "os": runtime.GOOS, "arch": runtime.GOARCH})
	}
	fmt.Fprintf(a.stdout, "hostgate-cli %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}

// callCtx bounds one call to the hub: --timeout beyond extra, the time the
// operation itself is asked to take.
func (a *app) callCtx(ctx context.Context, extra time.Duration) (context.Context, context.CancelFunc) {
	if a.timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, a.timeout+extra)
}
