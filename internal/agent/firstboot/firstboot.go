// Package firstboot implements the agent's first-boot installer,
//
//	hostgate-agent first-boot [--variant simple|autologon] [--source SOURCE]
//	    [--timeout D] [--default-api-endpoint URL] [--state-dir DIR]
//	    [--prefix DIR] [--service auto|systemd|detached]
//
// which a cloud template image runs at the first boot of every machine
// made from it (docs/provisioning.md). It waits for the provisioning
// payload (spec section 2) in the machine's user data, polling the
// configuration source every 2 s for up to 180 s (simple variant) or 60 s
// (self-managed-logon variant), validates it with agentproto.ParsePayload
// and installs the agent with the payload's credentials: on Windows
// through the --install-template installer (in process: no secret on a
// command line), on Linux through `hostgate-agent install` (systemd unit,
// or a detached agent without systemd). The self-managed-logon variant
// (Windows only) first configures automatic logon from the payload's
// autologon section.
//
// The run is idempotent: with install.done in the state directory it
// exits 0 at once, without reading any source. Exit codes are the spec's
// installer-script codes: 0 success (or already done), 2 no configuration
// appeared in time, 3 the configuration is not a valid payload (a required
// field missing, or the document refused outright: over 1 KB, beginning
// with '#', not JSON), 1 a usage or other error of this command, and any
// other value the --install-template installer's own code (20, 21, 30,
// 31, 32). The thin scripts a template carries (Scripts) add 4: the agent
// executable is absent from the image. Failures are one JSON object
// {code, exit, msg, hint} on stderr, like the installer's; nothing written
// ever holds a secret of the payload.
package firstboot

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"hostgate/internal/agent"
	"hostgate/internal/agent/install"
	"hostgate/internal/agentproto"
)

// Variants.
const (
	VariantSimple    = "simple"
	VariantAutologon = "autologon" // self-managed logon
)

// Exit codes of the first-boot installer and its scripts (spec section 7,
// "Installer script exit codes"). Any other value is the installer's own.
const (
	ExitOK      = 0
	ExitOther   = 1 // usage, or another error of this command
	ExitTimeout = 2 // no configuration appeared in time
	ExitConfig  = 3 // a required field is missing, or the document is not a valid payload
	ExitNoAgent = 4 // the agent executable is absent from the image (scripts only)
)

// Polling (spec section 2, rule 4).
const (
	PollInterval     = 2 * time.Second
	SimpleTimeout    = 180 * time.Second
	AutologonTimeout = 60 * time.Second
)

// Clock is the time the poll loop sees; tests replace it.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Options are the first-boot installer's settings.
type Options struct {
	Variant string // VariantSimple ("" too) or VariantAutologon
	Source  Source
	// Timeout bounds the wait for the configuration; 0 means the
	// variant's (SimpleTimeout or AutologonTimeout).
	Timeout time.Duration
	// Interval between polls; 0 means PollInterval.
	Interval time.Duration
	// DefaultAPIEndpoint is the hub's address used when the payload has
	// neither hub.api_endpoint nor hub.ws_url ("" means none: such a
	// payload is refused with ExitConfig).
	DefaultAPIEndpoint string
	// StateDir holds install.done and the setup file; "" means
	// agent.DefaultStateDir().
	StateDir string
	// Prefix and Service are passed to the Linux install ("" means its
	// defaults: /usr/local, auto).
	Prefix, Service string
}

// Install is what the installer is given: the payload's hub section with
// both addresses filled in, and where to install.
type Install struct {
	Hub      agentproto.PayloadHub
	StateDir string
	Prefix   string
	Service  string
}

// Installer installs the agent and returns the installer's exit code,
// having reported any failure on stderr itself.
type Installer func(in Install, stdout, stderr io.Writer) int

// Deps are Run's collaborators; nil fields mean the real ones.
type Deps struct {
	Clock     Clock
	Install   Installer // nil: DefaultInstaller
	AutoLogon AutoLogon // nil: NewAutoLogon()
	Stdout    io.Writer
	Stderr    io.Writer
}

// Failure is a first-boot failure, reported on stderr as one JSON object
// with the installer's keys.
type Failure struct {
	Code string `json:"code"`
	Exit int    `json:"exit"`
	Msg  string `json:"msg"`
	Hint string `json:"hint"`
}

func (f *Failure) report(w io.Writer) {
	b, _ := json.Marshal(f)
	fmt.Fprintf(w, "%s\n", b)
}

// Run waits for the configuration and installs from it, as the package
// comment says, and returns the exit code.
func Run(ctx context.Context, opts Options, deps Deps) int {
	stdout, stderr := orDiscard(deps.Stdout), orDiscard(deps.Stderr)
	code, f := run(ctx, opts, deps, stdout, stderr)
	if f != nil {
		f.report(stderr)
		return f.Exit
	}
	return code
}

func run(ctx context.Context, opts Options, deps Deps, stdout, stderr io.Writer) (int, *Failure) {
	timeout := opts.Timeout
	switch opts.Variant {
	case "", VariantSimple:
		timeout = cmp.Or(timeout, SimpleTimeout)
	case VariantAutologon:
		timeout = cmp.Or(timeout, AutologonTimeout)
	default:
		return 0, &Failure{Code: "invalid_argument", Exit: ExitOther, Msg: "--variant must be simple or autologon"}
	}
	if opts.Source == nil {
		return 0, &Failure{Code: "invalid_argument", Exit: ExitOther, Msg: "no configuration source"}
	}
	logon := deps.AutoLogon
	if opts.Variant == VariantAutologon && logon == nil {
		var err error
		if logon, err = NewAutoLogon(); err != nil {
			return 0, &Failure{Code: "unsupported", Exit: ExitOther, Msg: err.Error(),
				Hint: "the self-managed-logon variant configures Windows automatic logon; use --variant simple here"}
		}
	}
	stateDir := opts.StateDir
	if stateDir == "" {
		stateDir = agent.DefaultStateDir()
	}
	stateDir, err := filepath.Abs(stateDir)
	if err != nil {
		return 0, &Failure{Code: "invalid_argument", Exit: ExitOther, Msg: "--state-dir: " + err.Error()}
	}
	marker := filepath.Join(stateDir, install.MarkerFileName)
	if _, err := os.Stat(marker); err == nil {
		fmt.Fprintf(stdout, "hostgate-agent: already installed (%s present)\n", marker)
		return ExitOK, nil
	}

	clock := deps.Clock
	if clock == nil {
		clock = realClock{}
	}
	fmt.Fprintf(stdout, "hostgate-agent: waiting up to %s for the provisioning payload (%s)\n", timeout, opts.Source.Name())
	p, f := await(ctx, opts.Source, clock, cmp.Or(opts.Interval, PollInterval), timeout)
	if f != nil {
		return 0, f
	}
	if opts.Variant == VariantAutologon && p.Autologon == nil {
		return 0, &Failure{Code: "missing_field", Exit: ExitConfig,
			Msg:  "provisioning payload from " + opts.Source.Name() + ": autologon.password is missing",
			Hint: "the self-managed-logon variant needs the payload's autologon section; ask the hub for the payload with autologon"}
	}
	hub := p.Hub
	hub.Extra = ""
	if f := fillAddresses(&hub, opts.DefaultAPIEndpoint); f != nil {
		return 0, f
	}
	if opts.Variant == VariantAutologon {
		if err := logon.Configure(p.Autologon.User(), p.Autologon.Password); err != nil {
			return 0, &Failure{Code: "autologon_failed", Exit: ExitOther, Msg: "configure automatic logon: " + err.Error(),
				Hint: "run elevated (as SYSTEM or an administrator)"}
		}
		fmt.Fprintf(stdout, "hostgate-agent: automatic logon configured for %s\n", p.Autologon.User())
	}
	inst := deps.Install
	if inst == nil {
		inst = DefaultInstaller
	}
	return inst(Install{Hub: hub, StateDir: stateDir, Prefix: opts.Prefix, Service: opts.Service}, stdout, stderr), nil
}

// await polls src every interval until it yields a valid payload or
// timeout has passed since the first poll. A document that is not a valid
// payload ends the wait with ExitConfig once the same document has been
// read twice in a row (or at the deadline), so a file caught half-written
// is read again rather than refused.
func await(ctx context.Context, src Source, clock Clock, interval, timeout time.Duration) (agentproto.Payload, *Failure) {
	start := clock.Now()
	deadline := start.Add(timeout)
	var bad []byte
	var badErr, lastErr error
	for n := 1; ; n++ {
		fctx, cancel := context.WithTimeout(ctx, interval)
		doc, err := src.Fetch(fctx)
		cancel()
		switch {
		case err != nil:
			bad, lastErr = nil, err
		case len(bytes.TrimSpace(doc)) == 0:
			bad, lastErr = nil, nil
		default:
			p, perr := agentproto.ParsePayload(doc)
			if perr == nil {
				return p, nil
			}
			if bad != nil && bytes.Equal(bad, doc) {
				return agentproto.Payload{}, configFailure(src, perr)
			}
			bad, badErr = doc, perr
		}
		next := start.Add(time.Duration(n) * interval)
		if next.After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return agentproto.Payload{}, &Failure{Code: "interrupted", Exit: ExitOther, Msg: "stopped while waiting for the configuration"}
		case <-clock.After(next.Sub(clock.Now())):
		}
	}
	if bad != nil {
		return agentproto.Payload{}, configFailure(src, badErr)
	}
	msg := fmt.Sprintf("no provisioning payload appeared in %s within %s", src.Name(), timeout)
	if lastErr != nil {
		msg += " (last error: " + lastErr.Error() + ")"
	}
	return agentproto.Payload{}, &Failure{Code: "config_timeout", Exit: ExitTimeout, Msg: msg,
		Hint: "give the machine the hub's provisioning payload as its user data (docs/provisioning.md)"}
}

func configFailure(src Source, err error) *Failure {
	code := "invalid_payload"
	if errors.Is(err, agentproto.ErrPayloadMissingField) {
		code = "missing_field"
	}
	// ParsePayload's messages never hold a value.
	return &Failure{Code: code, Exit: ExitConfig, Msg: strings.Replace(err.Error(), "provisioning payload",
		"provisioning payload from "+src.Name(), 1),
		Hint: "give the machine the payload exactly as the hub returns it: one JSON object under 1 KB (docs/provisioning.md)"}
}

// fillAddresses completes the hub's addresses. One of them gives the
// other (the hub's own rule: wss://H/v1/internal/agent/ws for https://H,
// ws for http); with neither, the default API endpoint gives both.
func fillAddresses(h *agentproto.PayloadHub, defaultAPI string) *Failure {
	switch {
	case h.APIEndpoint == "" && h.WSURL == "":
		if defaultAPI == "" {
			return &Failure{Code: "missing_field", Exit: ExitConfig,
				Msg:  "provisioning payload: hub.api_endpoint and hub.ws_url are both missing and no default address is set",
				Hint: "put the hub's addresses in the payload, or pass --default-api-endpoint (the script's default hub address)"}
		}
		h.APIEndpoint = defaultAPI
		h.WSURL = WSURLFor(defaultAPI)
	case h.WSURL == "":
		h.WSURL = WSURLFor(h.APIEndpoint)
	case h.APIEndpoint == "":
		h.APIEndpoint = APIEndpointFor(h.WSURL)
	}
	return nil
}

// WSURLFor is the agent WebSocket address of the hub at api (http or
// https), as the hub derives it.
func WSURLFor(api string) string {
	u, err := url.Parse(api)
	if err != nil {
		return ""
	}
	u.Scheme = map[string]string{"https": "wss", "http": "ws"}[u.Scheme]
	u.Path = strings.TrimRight(u.Path, "/") + agentproto.PathWS
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u.String()
}

// APIEndpointFor is the API base of the hub whose agent WebSocket is ws.
func APIEndpointFor(ws string) string {
	u, err := url.Parse(ws)
	if err != nil {
		return ""
	}
	u.Scheme = map[string]string{"wss": "https", "ws": "http"}[u.Scheme]
	u.Path = strings.TrimSuffix(u.Path, agentproto.PathWS)
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	return u.String()
}

// marker is install.done as the template installer writes it.
type marker struct {
	HostID       string    `json:"host_id"`
	AgentVersion string    `json:"agent_version"`
	CompletedAt  time.Time `json:"completed_at"`
}

// writeMarker writes install.done into stateDir.
func writeMarker(stateDir, hostID string, now time.Time) error {
	b, _ := json.Marshal(marker{HostID: hostID, AgentVersion: agent.Version, CompletedAt: now.UTC()})
	path := filepath.Join(stateDir, install.MarkerFileName)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
