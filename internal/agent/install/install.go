// Package install implements the agent's template install mode,
//
//	hostgate-agent --install-template --setup-from FILE|- [--listen-port N] [--state-dir DIR]
//	hostgate-agent --install-template --host-id ID --bid N --secret-key K
//	    --install-token T --agent-privkey-seed S --agent-pubkey P
//	    --ws-url URL --api-endpoint URL [--listen-port N] [--state-dir DIR]
//
// (--setup-from reads the credentials as JSON, from standard input with
// "-", so that no secret is on a command line) which turns a machine cloned from a template image into a managed host:
// it copies the running executable to its installation path, writes the
// per-machine setup file (the agent's --config format), registers the
// background service, the logon worker task and the firewall rule,
// writes the completion marker install.done into the state directory,
// and starts the service, so the host comes online at once.
//
// A run with the credentials already installed is idempotent. With the
// marker present it exits 0 at once; with the setup file present but no
// marker (the second pass) it only verifies that the setup file parses
// and the service exists, then writes the marker and starts the service.
// Other credentials on an installed host (every installer the hub hands
// out is a new issue, and the hub rotated the host's keys when it issued
// it) are applied: the service is stopped, everything is written again,
// and the service restarted with them. Exit codes follow the interface specification: 0 success, 1
// internal or argument error, 20 executable copy, 21 setup file, 30
// service, 31 scheduled task, 32 firewall rule. On failure one JSON object
// {code, exit, msg, hint} goes to stderr; on success one line to stdout.
// Neither ever contains the secret key, the install token or the seed.
//
// Every effect on the operating system goes through the System interface,
// so the sequencing is tested anywhere with a fake; NewSystem returns the
// real one, which exists only on Windows (elsewhere it reports that the
// mode is unsupported).
package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"hostgate/internal/agent"
	"hostgate/internal/agentproto"
)

// Names used by the installation.
const (
	// ServiceName is the background service (the name cmd/hostgate-agent
	// runs under).
	ServiceName = "hostgate-agent"
	// TaskName is the scheduled task started at user logon.
	TaskName = "hostgate-agent-worker"
	// FirewallRuleName is the inbound firewall rule.
	FirewallRuleName = "hostgate-agent"
	// SetupFileName is the per-machine setup file in the state directory.
	SetupFileName = "agent.json"
	// MarkerFileName is the completion marker in the state directory.
	MarkerFileName = "install.done"
	// DefaultListenPort is the port the firewall rule opens by default.
	DefaultListenPort = 23456
	// WorkerCommand is the agent subcommand the logon task runs.
	WorkerCommand = "worker"
)

// Exit codes (interface specification, "Installer exit codes"). 10, 11 and
// 22 are reserved and never produced.
const (
	ExitOK       = 0
	ExitInternal = 1
	ExitCopy     = 20
	ExitSetup    = 21
	ExitService  = 30
	ExitTask     = 31
	ExitFirewall = 32
)

// Options are the installer's arguments: the agent setup it writes
// (agentproto.Setup) and where the executable goes. Setup.ListenPort is
// opened by the firewall rule (0 means DefaultListenPort); Setup.StateDir
// holds the setup file and the marker ("" means agent.DefaultStateDir());
// members only --setup-from carries (report_url, l1_listen) pass into
// the setup file.
type Options struct {
	agentproto.Setup
	// InstallPath is where the executable is installed; "" means
	// DefaultInstallPath().
	InstallPath string
}

// ServiceSpec describes the background service.
type ServiceSpec struct {
	Name        string
	DisplayName string
	Description string
	ExePath     string
	Args        []string // after ExePath on the service command line
}

// TaskSpec describes the logon worker task.
type TaskSpec struct {
	Name        string
	Description string
	ExePath     string
	Args        []string
}

// FirewallRule describes the inbound TCP allow rule.
type FirewallRule struct {
	Name string
	Port int
}

// System performs the installer's effects on the operating system. Every
// method must be idempotent: a later run repeats what an interrupted one
// did.
type System interface {
	// CopyExecutable installs the running executable at dst (creating its
	// directory). Already being at dst, or an identical file there, is
	// success.
	CopyExecutable(dst string) error
	// WriteSetupFile replaces path atomically with data, readable only by
	// administrators and the system account.
	WriteSetupFile(path string, data []byte) error
	// InstallService creates the service, or updates an existing one, with
	// automatic start and restart-on-failure recovery actions.
	InstallService(spec ServiceSpec) error
	// ServiceExists reports whether the named service is registered.
	ServiceExists(name string) (bool, error)
	// CreateLogonTask creates or replaces the logon task.
	CreateLogonTask(spec TaskSpec) error
	// AddFirewallRule creates or replaces the firewall rule.
	AddFirewallRule(rule FirewallRule) error
	// StartService starts the named service; one already running is
	// success.
	StartService(name string) error
	// StopService stops the named service and waits until it has
	// stopped; one already stopped, or absent, is success.
	StopService(name string) error
}

// Deps are Run's collaborators.
type Deps struct {
	System System
	Stdout io.Writer        // the success line; nil discards it
	Stdin  io.Reader        // read by --setup-from -; nil refuses it
	Now    func() time.Time // nil means time.Now
}

// Error is an installer failure, reported on stderr as JSON.
type Error struct {
	Code string `json:"code"`
	Exit int    `json:"exit"`
	Msg  string `json:"msg"`
	Hint string `json:"hint"`
	Err  error  `json:"-"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Msg }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// fail builds an *Error whose message is what plus err.
func fail(code string, exit int, hint, what string, err error) *Error {
	msg := what
	if err != nil {
		msg += ": " + err.Error()
	}
	return &Error{Code: code, Exit: exit, Msg: msg, Hint: hint, Err: err}
}

// ExitCode is the process exit code for Run's result.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Exit
	}
	return ExitInternal
}

// setupFile is the setup file: the agent's --config format.
type setupFile = agentproto.Setup

// marker is the content of install.done.
type marker struct {
	HostID       string    `json:"host_id"`
	AgentVersion string    `json:"agent_version"`
	CompletedAt  time.Time `json:"completed_at"`
}

// Run installs the agent as opts describe. The error, if any, is an *Error
// carrying the exit code; on success one line is written to deps.Stdout.
func Run(opts Options, deps Deps) error {
	if deps.System == nil {
		return fail("internal", ExitInternal, "", "no system implementation", nil)
	}
	out := deps.Stdout
	if out == nil {
		out = io.Discard
	}
	now := deps.Now
	if now == nil {
		now = time.Now
	}
	if opts.StateDir == "" {
		opts.StateDir = agent.DefaultStateDir()
	}
	stateDir, err := filepath.Abs(opts.StateDir)
	if err != nil {
		return fail("invalid_argument", ExitInternal, "", "--state-dir", err)
	}
	opts.StateDir = stateDir
	markerPath := filepath.Join(stateDir, MarkerFileName)
	setupPath := filepath.Join(stateDir, SetupFileName)

	// Step 0: already done, second pass, or new credentials for an
	// installed host.
	marked, err := exists(markerPath)
	if err != nil {
		return fail("internal", ExitInternal, "check that the state directory is readable", "completion marker", err)
	}
	current, haveSetup, err := readSetupIdentity(setupPath)
	if err != nil {
		return fail("internal", ExitInternal, "check that the state directory is readable", "setup file", err)
	}
	reinstall := false
	switch {
	case !marked && !haveSetup:
		// First install.
	case !opts.hasCredentials() || (haveSetup && (current == nil || current.same(opts))):
		// The same credentials again (or none, or a setup file that does
		// not parse, which the second pass reports).
		if marked {
			fmt.Fprintf(out, "hostgate-agent: already installed (%s present)\n", markerPath)
			return nil
		}
		return verify(setupPath, markerPath, deps.System, now, out)
	default:
		// New credentials for an installed host (the hub has rotated
		// its keys when it issued them): apply them and restart.
		reinstall = true
	}

	// Full install.
	if err := opts.validate(); err != nil {
		return err
	}
	if opts.InstallPath == "" {
		opts.InstallPath = DefaultInstallPath()
	}
	if opts.ListenPort == 0 {
		opts.ListenPort = DefaultListenPort
	}
	sys := deps.System
	if reinstall {
		// The running agent holds the old credentials and its executable
		// open: stop it first.
		if err := sys.StopService(ServiceName); err != nil {
			return fail("service_failed", ExitService, "run elevated; stop the service "+ServiceName+" by hand and run again",
				"stop service "+ServiceName, err)
		}
	}
	if err := sys.CopyExecutable(opts.InstallPath); err != nil {
		return fail("copy_failed", ExitCopy, "run elevated and check free space and that no agent runs from the install path",
			"copy executable to "+opts.InstallPath, err)
	}
	if err := writeSetup(sys, opts, setupPath); err != nil {
		return err
	}
	args := []string{"run", "--config", setupPath}
	if err := sys.InstallService(ServiceSpec{
		Name: ServiceName, DisplayName: "hostgate agent",
		Description: "Connects this host to the hostgate hub and serves its commands.",
		ExePath:     opts.InstallPath, Args: args,
	}); err != nil {
		return fail("service_failed", ExitService, "run elevated; the service control manager must be reachable",
			"create service "+ServiceName, err)
	}
	if err := sys.CreateLogonTask(TaskSpec{
		Name: TaskName, Description: "hostgate agent worker in the logged-on user's session.",
		ExePath: opts.InstallPath, Args: []string{WorkerCommand, "--config", setupPath},
	}); err != nil {
		return fail("task_failed", ExitTask, "run elevated; the Task Scheduler service must be running",
			"create scheduled task "+TaskName, err)
	}
	if err := sys.AddFirewallRule(FirewallRule{Name: FirewallRuleName, Port: opts.ListenPort}); err != nil {
		return fail("firewall_failed", ExitFirewall, "run elevated; the Windows Defender Firewall service must be running",
			"add firewall rule "+FirewallRuleName, err)
	}
	if err := writeMarker(markerPath, opts.HostID, now); err != nil {
		return err
	}
	what, started := "installed", ""
	if reinstall {
		// The logon worker may have started the service again meanwhile,
		// with the setup file of that moment: stop it once more so that
		// the start below reads the new one.
		what = "reinstalled with new credentials"
		if err := sys.StopService(ServiceName); err != nil {
			started = fmt.Sprintf("not restarted (%v): restart it to apply the new credentials", err)
		}
	}
	if started == "" {
		started = startService(sys)
	}
	fmt.Fprintf(out, "hostgate-agent: %s host %s (service %s %s, task %s, firewall TCP %d, setup %s)\n",
		what, opts.HostID, ServiceName, started, TaskName, opts.ListenPort, setupPath)
	return nil
}

// setup is the setup file opts write: their setup, without the members
// it does not know (the install credentials carry more) and without a
// sealed seed.
func (o Options) setup() agentproto.Setup {
	s := o.Setup
	s.DropUnknown()
	s.AgentPrivkeySealed, s.KeyProtection = "", "" // the agent's own, never an installer's
	return s
}

// setupIdentity is what tells one issue of install credentials from
// another: every issue has a new install token and key pair.
type setupIdentity struct {
	hostID, installToken, pubkey string
}

func identityOf(hostID, installToken, pubkey string) setupIdentity {
	return setupIdentity{
		hostID:       strings.ToLower(strings.TrimSpace(hostID)),
		installToken: strings.TrimSpace(installToken),
		pubkey:       strings.TrimPrefix(strings.TrimSpace(pubkey), "ed25519:"),
	}
}

// same reports whether opts are the credentials the setup file holds.
func (id *setupIdentity) same(o Options) bool {
	return *id == identityOf(o.HostID, o.InstallToken, o.AgentPubkey)
}

// hasCredentials reports whether any install credential was given.
func (o Options) hasCredentials() bool {
	return o.HostID != "" || o.InstallToken != "" || o.AgentPrivkeySeed != "" || o.AgentPubkey != "" || o.SecretKey != ""
}

// readSetupIdentity reads the credentials' identity from the setup file
// at path: exists is false when there is none, and id nil when it does
// not parse.
func readSetupIdentity(path string) (id *setupIdentity, exists bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	s, err := agentproto.ParseSetup(b)
	if err != nil {
		return nil, true, nil
	}
	v := identityOf(s.HostID, s.InstallToken, s.AgentPubkey)
	return &v, true, nil
}

// startService starts the agent service at once, so the host comes
// online now rather than at the next boot or logon, and says how that
// went for the success line. The install is complete either way: a
// service that will not start now still starts at boot, and the logon
// worker starts it too.
func startService(sys System) string {
	if err := sys.StartService(ServiceName); err != nil {
		return fmt.Sprintf("registered but not started now (%v): it starts at the next boot or logon", err)
	}
	return "started"
}

// writeSetup prepares the state directory and writes the setup file.
func writeSetup(sys System, opts Options, path string) error {
	const hint = "run elevated and check that the state directory is writable"
	if _, err := agent.PrepareStateDir(opts.StateDir); err != nil {
		return fail("setup_write_failed", ExitSetup, hint, "prepare state directory", err)
	}
	data, err := opts.setup().Encode()
	if err != nil {
		return fail("internal", ExitInternal, "", "encode setup file", err)
	}
	if err := sys.WriteSetupFile(path, data); err != nil {
		return fail("setup_write_failed", ExitSetup, hint, "write setup file "+path, err)
	}
	return nil
}

// verify is the second pass: the setup file must parse into a valid agent
// configuration and the service must exist; then the marker is written.
func verify(setupPath, markerPath string, sys System, now func() time.Time, out io.Writer) error {
	const hint = "delete the setup file (and the service) to install again"
	b, err := os.ReadFile(setupPath)
	if err != nil {
		return fail("setup_invalid", ExitSetup, hint, "read setup file "+setupPath, err)
	}
	s, err := agentproto.ParseSetup(b)
	if err != nil {
		// json errors quote at most a few bytes of syntax, never values of
		// known keys, but keep the message generic anyway.
		return fail("setup_invalid", ExitSetup, hint, "setup file "+setupPath+" is not valid JSON", nil)
	}
	if err := agent.ConfigFrom(s).Validate(); err != nil {
		return fail("setup_invalid", ExitSetup, hint, "setup file "+setupPath, err)
	}
	ok, err := sys.ServiceExists(ServiceName)
	if err != nil {
		return fail("service_failed", ExitService, "run elevated; the service control manager must be reachable",
			"query service "+ServiceName, err)
	}
	if !ok {
		return fail("service_missing", ExitService, hint, "service "+ServiceName+" does not exist", nil)
	}
	if err := writeMarker(markerPath, s.HostID, now); err != nil {
		return err
	}
	fmt.Fprintf(out, "hostgate-agent: install verified for host %s (%s written; service %s %s)\n",
		s.HostID, markerPath, ServiceName, startService(sys))
	return nil
}

func writeMarker(path, hostID string, now func() time.Time) error {
	b, _ := json.Marshal(marker{HostID: hostID, AgentVersion: agent.Version, CompletedAt: now().UTC()})
	if err := writeFileAtomic(path, append(b, '\n'), nil); err != nil {
		return fail("internal", ExitInternal, "check that the state directory is writable", "write completion marker", err)
	}
	return nil
}

// validate checks the arguments of a full install. The agent's own
// configuration check applies, so the service is never registered with a
// setup it would refuse.
func (o Options) validate() error {
	var missing []string
	for _, f := range []struct{ name, v string }{
		{"--host-id", o.HostID}, {"--secret-key", o.SecretKey}, {"--install-token", o.InstallToken},
		{"--agent-privkey-seed", o.AgentPrivkeySeed}, {"--agent-pubkey", o.AgentPubkey},
		{"--ws-url", o.WSURL}, {"--api-endpoint", o.APIEndpoint},
	} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fail("missing_argument", ExitInternal, "pass every install credential",
			"missing "+strings.Join(missing, ", "), nil)
	}
	if o.ListenPort < 0 || o.ListenPort > 65535 {
		return fail("invalid_argument", ExitInternal, "", "--listen-port must be 1..65535", nil)
	}
	if err := agent.ConfigFrom(o.setup()).Validate(); err != nil {
		// Validate never echoes secrets.
		return fail("invalid_argument", ExitInternal, "use the install credentials exactly as the hub returned them",
			"invalid arguments", err)
	}
	return nil
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if err == nil {
		return true, nil
	}
	// A parent that is a file: the install fails later, when the state
	// directory is created, with the right exit code.
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return false, nil
	}
	return false, err
}
