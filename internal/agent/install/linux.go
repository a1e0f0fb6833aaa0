package install

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"hostgate/internal/agent"
	"hostgate/internal/agentproto"
)

// The Linux install, `hostgate-agent install` (docs/agent.md, On Linux),
// is what the hub's one-line shell installer runs once it has downloaded
// and checked the agent binary. Like the Windows template install it
// copies the running executable to its installation path, writes the
// setup file (the agent's --config) into the state directory and
// registers the service; unlike it, it has no completion marker: every
// run applies the credentials it is given (the one-line installer always
// brings fresh ones) and restarts the agent, and a rerun with the same
// input leaves the same files (the setup file is then kept as it is).
// Failures use the same JSON report and exit codes as --install-template.

// Linux install defaults.
const (
	DefaultPrefix  = "/usr/local"
	DefaultUnitDir = "/etc/systemd/system"
	// UnitName is the systemd unit.
	UnitName = ServiceName + ".service"
	// Files the detached (no systemd) mode keeps in the state directory.
	PIDFileName = "agent.pid"
	LogFileName = "agent.log"
)

// Service modes of the Linux install.
const (
	ServiceAuto     = "auto"     // systemd when it runs, else detached
	ServiceSystemd  = "systemd"  // a systemd unit, enabled and (re)started
	ServiceDetached = "detached" // a background process, no supervisor
)

// LinuxUsage describes `hostgate-agent install`.
const LinuxUsage = `usage: hostgate-agent install --config FILE|- [--prefix DIR] [--state-dir DIR]
    [--service auto|systemd|detached] [--unit-dir DIR]
Installs the agent on this Linux machine (as root): the binary at
PREFIX/bin/hostgate-agent (default /usr/local), its configuration at
STATE-DIR/agent.json (default /var/lib/hostgate-agent, mode 0600) and the
systemd unit hostgate-agent.service, enabled and started. Without systemd
(or with --service detached) the agent is started in the background.
--config is the install credentials as JSON ("-": standard input).
Exit codes: 0 ok, 1 argument or other error, 20 copy, 21 setup file,
30 service; failures are one JSON object on stderr.
`

// LinuxOptions are the Linux install's arguments.
type LinuxOptions struct {
	Setup    []byte // the install credentials, JSON (the agent's --config keys)
	Prefix   string // "" means DefaultPrefix
	StateDir string // "" means agent.DefaultStateDir()
	Service  string // ServiceAuto ("" too), ServiceSystemd or ServiceDetached
	UnitDir  string // "" means DefaultUnitDir
}

// Machine performs the Linux install's effects that are not plain files.
type Machine interface {
	// CopyExecutable installs the running executable at dst, as
	// System.CopyExecutable.
	CopyExecutable(dst string) error
	// SystemdRunning reports whether systemd is the running init
	// (/run/systemd/system exists).
	SystemdRunning() bool
	// Systemctl runs systemctl with args.
	Systemctl(args ...string) error
	// StopDetached stops the agent whose pid is in pidFile, if it still
	// runs, and removes the file; a missing file is no error.
	StopDetached(pidFile string) error
	// StartDetached starts exe with args in a new session, standard input
	// from /dev/null and output appended to logFile, and returns its pid
	// without waiting for it.
	StartDetached(exe string, args []string, logFile string) (int, error)
}

// LinuxMain runs `hostgate-agent install` with the real machine; args
// follow "install". It returns the process exit code.
func LinuxMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	m, err := NewMachine()
	if err != nil {
		m = unsupportedMachine{err}
	}
	return LinuxCommand(args, stdin, m, stdout, stderr)
}

// unsupportedMachine is the Machine where the Linux install cannot run:
// LinuxInstall refuses it before doing anything.
type unsupportedMachine struct{ err error }

func (u unsupportedMachine) CopyExecutable(string) error { return u.err }
func (unsupportedMachine) SystemdRunning() bool          { return false }
func (u unsupportedMachine) Systemctl(...string) error   { return u.err }
func (u unsupportedMachine) StopDetached(string) error   { return u.err }
func (u unsupportedMachine) StartDetached(string, []string, string) (int, error) {
	return 0, u.err
}

// LinuxCommand parses args, runs the Linux install on m and reports a
// failure on stderr as one JSON object. It returns the exit code.
func LinuxCommand(args []string, stdin io.Reader, m Machine, stdout, stderr io.Writer) int {
	opts, err := parseLinuxArgs(args, stdin)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, LinuxUsage)
		return ExitOK
	}
	if err == nil {
		err = LinuxInstall(opts, m, stdout)
	}
	if err != nil {
		s, _ := agentproto.ParseSetup(opts.Setup)
		report(stderr, err, Options{Setup: s})
	}
	return ExitCode(err)
}

func parseLinuxArgs(args []string, stdin io.Reader) (LinuxOptions, error) {
	fs := flag.NewFlagSet("hostgate-agent install", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o LinuxOptions
	config := fs.String("config", "", "install credentials JSON file, - for standard input")
	fs.StringVar(&o.Prefix, "prefix", "", "installation prefix")
	fs.StringVar(&o.StateDir, "state-dir", "", "state directory")
	fs.StringVar(&o.Service, "service", ServiceAuto, "auto, systemd or detached")
	fs.StringVar(&o.UnitDir, "unit-dir", "", "systemd unit directory")
	const hint = "see hostgate-agent install --help"
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, fail("invalid_argument", ExitInternal, hint, "arguments", err)
	}
	if fs.NArg() > 0 {
		return o, fail("invalid_argument", ExitInternal, hint, fmt.Sprintf("unexpected arguments (%d)", fs.NArg()), nil)
	}
	switch o.Service {
	case ServiceAuto, ServiceSystemd, ServiceDetached:
	default:
		return o, fail("invalid_argument", ExitInternal, hint, "--service must be auto, systemd or detached", nil)
	}
	var err error
	switch *config {
	case "":
		return o, fail("missing_argument", ExitInternal, hint, "missing --config", nil)
	case "-":
		o.Setup, err = io.ReadAll(io.LimitReader(stdin, 64<<10))
	default:
		o.Setup, err = os.ReadFile(*config)
	}
	if err != nil {
		return o, fail("invalid_argument", ExitInternal, hint, "read --config", err)
	}
	return o, nil
}

// LinuxInstall installs the agent as opts describe, through m. The error,
// if any, is an *Error with the exit code; progress goes to out.
func LinuxInstall(opts LinuxOptions, m Machine, out io.Writer) error {
	if u, ok := m.(unsupportedMachine); ok {
		return fail("unsupported", ExitInternal, "on Windows use --install-template", u.err.Error(), nil)
	}
	p, err := linuxPaths(opts)
	if err != nil {
		return err
	}
	s, err := agentproto.ParseSetup(opts.Setup)
	if err != nil {
		return fail("invalid_argument", ExitInternal, "pass the install credentials exactly as the hub returned them",
			"--config is not valid JSON", nil)
	}
	// The install credentials carry more than the setup file keeps.
	s.DropUnknown()
	s.StateDir = p.state
	if err := agent.ConfigFrom(s).Validate(); err != nil {
		return fail("invalid_argument", ExitInternal, "use the install credentials exactly as the hub returned them",
			"invalid install credentials", err)
	}
	if err := m.CopyExecutable(p.bin); err != nil {
		return fail("copy_failed", ExitCopy, "run as root and check free space", "copy executable to "+p.bin, err)
	}
	// The same credentials again (a saved script run twice) keep the
	// setup file, which may hold newer L1 settings (settings.update);
	// new credentials replace it, and the agent's saved token, bound to
	// the old key, is ignored from then on.
	cur, _, err := readSetupIdentity(p.setup)
	if err != nil || cur == nil || !cur.same(Options{Setup: s}) {
		if err := writeLinuxSetup(s, p.setup); err != nil {
			return err
		}
	}
	mode := opts.Service
	if mode == ServiceAuto || mode == "" {
		mode = ServiceDetached
		if m.SystemdRunning() {
			mode = ServiceSystemd
		}
	}
	unit := UnitFile(p.bin, p.state, p.setup)
	if mode == ServiceSystemd {
		if err := startSystemd(m, p, unit); err != nil {
			return err
		}
		fmt.Fprintf(out, "hostgate-agent: installed host %s: %s, configuration %s, systemd unit %s enabled and started\n",
			s.HostID, p.bin, p.setup, filepath.Join(p.unitDir, UnitName))
		fmt.Fprintf(out, "hostgate-agent: logs: journalctl -u %s\n", ServiceName)
		return nil
	}
	pid, err := startDetached(m, p, unit)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "hostgate-agent: installed host %s: %s, configuration %s\n", s.HostID, p.bin, p.setup)
	fmt.Fprintf(out, "hostgate-agent: systemd is not running here, so the agent was started in the background "+
		"(pid %d, log %s, pid file %s).\n", pid, p.log, p.pid)
	fmt.Fprintf(out, "hostgate-agent: it does not start again at boot by itself. With systemd: "+
		"cp %s %s/ && systemctl enable --now %s. Otherwise have your init system run (e.g. a root crontab line "+
		"@reboot %s >>%s 2>&1).\n",
		p.unitCopy, DefaultUnitDir, ServiceName, strings.Join(append([]string{p.bin}, runArgs(p.state, p.setup)...), " "), p.log)
	return nil
}

// linuxInstallPaths are the files of one Linux install.
type linuxInstallPaths struct {
	bin, state, setup, unitDir, unitCopy, pid, log string
}

func linuxPaths(opts LinuxOptions) (linuxInstallPaths, error) {
	abs := func(flag, v, def string) (string, error) {
		if v == "" {
			v = def
		}
		a, err := filepath.Abs(v)
		if err != nil {
			return "", fail("invalid_argument", ExitInternal, "", flag, err)
		}
		return a, nil
	}
	var p linuxInstallPaths
	prefix, err := abs("--prefix", opts.Prefix, DefaultPrefix)
	if err != nil {
		return p, err
	}
	if p.state, err = abs("--state-dir", opts.StateDir, agent.DefaultStateDir()); err != nil {
		return p, err
	}
	if p.unitDir, err = abs("--unit-dir", opts.UnitDir, DefaultUnitDir); err != nil {
		return p, err
	}
	p.bin = filepath.Join(prefix, "bin", ServiceName)
	p.setup = filepath.Join(p.state, SetupFileName)
	p.unitCopy = filepath.Join(p.state, UnitName)
	p.pid = filepath.Join(p.state, PIDFileName)
	p.log = filepath.Join(p.state, LogFileName)
	return p, nil
}

// writeLinuxSetup prepares the state directory (0700) and writes the
// setup file (0600) atomically.
func writeLinuxSetup(s setupFile, path string) error {
	const hint = "run as root, or choose a writable directory with --state-dir"
	if _, err := agent.PrepareStateDir(s.StateDir); err != nil {
		return fail("setup_write_failed", ExitSetup, hint, "prepare state directory", err)
	}
	data, err := s.Encode()
	if err != nil {
		return fail("internal", ExitInternal, "", "encode setup file", err)
	}
	if err := writeFileAtomic(path, data, nil); err != nil {
		return fail("setup_write_failed", ExitSetup, hint, "write setup file "+path, err)
	}
	return nil
}

func startSystemd(m Machine, p linuxInstallPaths, unit []byte) error {
	const hint = "run as root; systemd must be running (or use --service detached)"
	unitPath := filepath.Join(p.unitDir, UnitName)
	if err := os.MkdirAll(p.unitDir, 0o755); err != nil {
		return fail("service_failed", ExitService, hint, "create "+p.unitDir, err)
	}
	if err := writeFileAtomic(unitPath, unit, func(tmp string) error { return os.Chmod(tmp, 0o644) }); err != nil {
		return fail("service_failed", ExitService, hint, "write "+unitPath, err)
	}
	// An agent an earlier install started detached would run beside the unit's.
	if err := m.StopDetached(p.pid); err != nil {
		return fail("service_failed", ExitService, "stop it by hand (kill $(cat "+p.pid+"))", "stop the detached agent", err)
	}
	for _, args := range [][]string{{"daemon-reload"}, {"enable", UnitName}, {"restart", UnitName}} {
		if err := m.Systemctl(args...); err != nil {
			return fail("service_failed", ExitService, hint, "systemctl "+strings.Join(args, " "), err)
		}
	}
	return nil
}

func startDetached(m Machine, p linuxInstallPaths, unit []byte) (int, error) {
	const hint = "check that the agent binary runs on this machine; its log may say more"
	// A ready unit for whoever adds systemd later (0600: it is in the
	// state directory, and names only paths).
	if err := writeFileAtomic(p.unitCopy, unit, nil); err != nil {
		return 0, fail("setup_write_failed", ExitSetup, "", "write "+p.unitCopy, err)
	}
	if err := m.StopDetached(p.pid); err != nil {
		return 0, fail("service_failed", ExitService, "stop it by hand (kill $(cat "+p.pid+"))", "stop the running agent", err)
	}
	pid, err := m.StartDetached(p.bin, runArgs(p.state, p.setup), p.log)
	if err != nil {
		return 0, fail("service_failed", ExitService, hint, "start the agent in the background", err)
	}
	if err := writeFileAtomic(p.pid, fmt.Appendf(nil, "%d\n", pid), nil); err != nil {
		return 0, fail("setup_write_failed", ExitSetup, "the agent runs; stop it with kill "+fmt.Sprint(pid), "write "+p.pid, err)
	}
	return pid, nil
}

// runArgs are the agent's arguments as a service.
func runArgs(state, setup string) []string {
	return []string{"run", "--state-dir", state, "--config", setup}
}

// UnitFile is the systemd unit running the agent at bin with its state
// directory and setup file.
func UnitFile(bin, state, setup string) []byte {
	args := append([]string{bin}, runArgs(state, setup)...)
	for i, a := range args {
		args[i] = systemdQuote(a)
	}
	return []byte(`[Unit]
Description=hostgate agent
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
ExecStart=` + strings.Join(args, " ") + `
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
`)
}

// systemdQuote makes one word of a unit's command line: % (specifiers)
// and $ (variables) doubled, and double-quoted with \ and " escaped when
// it holds a space or a quoting character.
func systemdQuote(s string) string {
	s = strings.NewReplacer("%", "%%", "$", "$$").Replace(s)
	if s != "" && !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
