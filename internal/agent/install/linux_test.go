package install

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"hostgate/internal/agent"
)

// fakeMachine records the Linux install's effects; systemctl fails for
// the subcommand named in failOn.
type fakeMachine struct {
	systemd  bool
	failOn   string
	calls    []string
	copiedTo string
	started  []string // exe and args of StartDetached
	logFile  string
	nextPID  int
}

func (m *fakeMachine) CopyExecutable(dst string) error {
	m.copiedTo = dst
	m.calls = append(m.calls, "copy")
	return os.WriteFile(dst+".copied", nil, 0o600)
}

func (m *fakeMachine) SystemdRunning() bool { return m.systemd }

func (m *fakeMachine) Systemctl(args ...string) error {
	m.calls = append(m.calls, "systemctl "+strings.Join(args, " "))
	if len(args) > 0 && args[0] == m.failOn {
		return errInjected
	}
	return nil
}

func (m *fakeMachine) StopDetached(pidFile string) error {
	m.calls = append(m.calls, "stop "+filepath.Base(pidFile))
	return nil
}

func (m *fakeMachine) StartDetached(exe string, args []string, logFile string) (int, error) {
	m.calls = append(m.calls, "start")
	m.started, m.logFile = append([]string{exe}, args...), logFile
	m.nextPID++
	return 4000 + m.nextPID, nil
}

// linuxSetup is the install credentials the one-line installer passes.
func linuxSetup(token string) []byte {
	b, _ := json.Marshal(map[string]any{
		"host_id": testHostID, "bid": 42, "secret_key": testSecretKey, "install_token": token,
		"agent_privkey_seed": testSeed, "agent_pubkey": testPubkey,
		"ws_url": "wss://hub.example/v1/internal/agent/ws", "api_endpoint": "https://hub.example", "listen_port": 23456,
	})
	return b
}

type linuxWorld struct {
	prefix, state, units string
}

func newLinuxWorld(t *testing.T) linuxWorld {
	if runtime.GOOS == "windows" {
		t.Skip("file modes are POSIX")
	}
	root := t.TempDir()
	w := linuxWorld{filepath.Join(root, "usr"), filepath.Join(root, "var", "lib", "hostgate-agent"), filepath.Join(root, "units")}
	if err := os.MkdirAll(filepath.Join(w.prefix, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w linuxWorld) run(t *testing.T, m Machine, service string, setup []byte) result {
	t.Helper()
	var out, errb bytes.Buffer
	args := []string{"--config", "-", "--prefix", w.prefix, "--state-dir", w.state, "--unit-dir", w.units}
	if service != "" {
		args = append(args, "--service", service)
	}
	code := LinuxCommand(args, bytes.NewReader(setup), m, &out, &errb)
	r := result{code, out.String(), errb.String()}
	for _, secret := range []string{testSecretKey, testToken, testSeed} {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("output shows a secret %q:\nstdout %q\nstderr %q", secret, r.stdout, r.stderr)
		}
	}
	return r
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func TestLinuxInstallWithSystemd(t *testing.T) {
	w := newLinuxWorld(t)
	m := &fakeMachine{systemd: true}
	r := w.run(t, m, "", linuxSetup(testToken))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	bin := filepath.Join(w.prefix, "bin", "hostgate-agent")
	setup := filepath.Join(w.state, "agent.json")
	unitPath := filepath.Join(w.units, "hostgate-agent.service")
	wantCalls := []string{"copy", "stop agent.pid", "systemctl daemon-reload",
		"systemctl enable hostgate-agent.service", "systemctl restart hostgate-agent.service"}
	if m.copiedTo != bin || !reflect.DeepEqual(m.calls, wantCalls) {
		t.Errorf("copied to %q, calls %q; want %q, %q", m.copiedTo, m.calls, bin, wantCalls)
	}
	unit, err := os.ReadFile(unitPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"\nExecStart=" + bin + " run --state-dir " + w.state + " --config " + setup + "\n",
		"\nRestart=always\n", "\nWantedBy=multi-user.target\n", "\nAfter=network-online.target\n",
	} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
	if got := mode(t, unitPath); got != 0o644 {
		t.Errorf("unit mode %v, want 0644", got)
	}
	if got := mode(t, w.state); got != 0o700|os.ModeDir {
		t.Errorf("state dir mode %v, want drwx------", got)
	}
	if got := mode(t, setup); got != 0o600 {
		t.Errorf("setup mode %v, want 0600", got)
	}
	var s setupFile
	b, _ := os.ReadFile(setup)
	if err := json.Unmarshal(b, &s); err != nil || s.StateDir != w.state || s.InstallToken != testToken || agent.ConfigFrom(s).Validate() != nil {
		t.Errorf("setup file %+v (%v) is not a valid config for %s", s, err, w.state)
	}
	if !strings.Contains(r.stdout, "enabled and started") || !strings.Contains(r.stdout, "journalctl -u hostgate-agent") {
		t.Errorf("stdout %q", r.stdout)
	}

	// Idempotent: a rerun leaves the same files and does the same; new
	// credentials replace the old.
	m2 := &fakeMachine{systemd: true}
	if r := w.run(t, m2, "", linuxSetup(testToken)); r.code != 0 {
		t.Fatalf("rerun: exit %d: %s", r.code, r.stderr)
	}
	unit2, _ := os.ReadFile(unitPath)
	b2, _ := os.ReadFile(setup)
	if !bytes.Equal(unit, unit2) || !bytes.Equal(b, b2) || !reflect.DeepEqual(m2.calls, wantCalls) {
		t.Errorf("rerun changed something: calls %q", m2.calls)
	}
	if r := w.run(t, &fakeMachine{systemd: true}, "", linuxSetup("a-newer-install-token")); r.code != 0 {
		t.Fatalf("reinstall: exit %d: %s", r.code, r.stderr)
	}
	b3, _ := os.ReadFile(setup)
	if !strings.Contains(string(b3), "a-newer-install-token") {
		t.Errorf("reinstall kept the old credentials")
	}
	entries, _ := os.ReadDir(w.units)
	if len(entries) != 1 {
		t.Errorf("unit directory holds %d files, want 1", len(entries))
	}
}

func TestLinuxInstallDetachedWithoutSystemd(t *testing.T) {
	w := newLinuxWorld(t)
	m := &fakeMachine{}
	r := w.run(t, m, "auto", linuxSetup(testToken))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	bin := filepath.Join(w.prefix, "bin", "hostgate-agent")
	setup := filepath.Join(w.state, "agent.json")
	if want := []string{"copy", "stop agent.pid", "start"}; !reflect.DeepEqual(m.calls, want) {
		t.Errorf("calls %q, want %q", m.calls, want)
	}
	if want := []string{bin, "run", "--state-dir", w.state, "--config", setup}; !reflect.DeepEqual(m.started, want) {
		t.Errorf("started %q, want %q", m.started, want)
	}
	if m.logFile != filepath.Join(w.state, "agent.log") {
		t.Errorf("log file %q", m.logFile)
	}
	if b, err := os.ReadFile(filepath.Join(w.state, "agent.pid")); err != nil || string(b) != "4001\n" {
		t.Errorf("pid file %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(w.units, "hostgate-agent.service")); !os.IsNotExist(err) {
		t.Errorf("a unit was written without systemd: %v", err)
	}
	if u, err := os.ReadFile(filepath.Join(w.state, "hostgate-agent.service")); err != nil || !strings.Contains(string(u), "Restart=always") {
		t.Errorf("no ready unit kept in the state directory: %v", err)
	}
	for _, want := range []string{"started in the background (pid 4001", "does not start again at boot", "systemctl enable --now hostgate-agent", "@reboot"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	// A rerun stops the running agent before it starts the new one.
	m2 := &fakeMachine{nextPID: 1}
	if r := w.run(t, m2, "", linuxSetup(testToken)); r.code != 0 {
		t.Fatalf("rerun: exit %d: %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(w.state, "agent.pid")); string(b) != "4002\n" || m2.calls[1] != "stop agent.pid" {
		t.Errorf("rerun: pid file %q, calls %q", b, m2.calls)
	}
}

func TestLinuxInstallFailures(t *testing.T) {
	w := newLinuxWorld(t)
	decode := func(t *testing.T, r result) Error {
		t.Helper()
		var e Error
		if err := json.Unmarshal([]byte(r.stderr), &e); err != nil {
			t.Fatalf("stderr is not one JSON object: %q", r.stderr)
		}
		return e
	}
	r := w.run(t, &fakeMachine{systemd: true, failOn: "restart"}, "", linuxSetup(testToken))
	if e := decode(t, r); r.code != ExitService || e.Code != "service_failed" || !strings.Contains(e.Msg, "systemctl restart") {
		t.Errorf("systemctl failure: exit %d %+v", r.code, e)
	}
	r = w.run(t, &fakeMachine{}, "", []byte(`{"host_id":"x","secret_key":"`+testSecretKey+`"}`))
	if e := decode(t, r); r.code != ExitInternal || e.Code != "invalid_argument" {
		t.Errorf("bad credentials: exit %d %+v", r.code, e)
	}
	r = w.run(t, &fakeMachine{}, "", []byte("{not json"))
	if e := decode(t, r); r.code != ExitInternal || e.Code != "invalid_argument" {
		t.Errorf("not JSON: exit %d %+v", r.code, e)
	}
	r = w.run(t, &fakeMachine{}, "upstart", linuxSetup(testToken))
	if e := decode(t, r); r.code != ExitInternal || e.Code != "invalid_argument" {
		t.Errorf("bad --service: exit %d %+v", r.code, e)
	}
	// A state directory that cannot be made: exit 21, nothing started.
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	w.state = filepath.Join(blocker, "state")
	m := &fakeMachine{}
	r = w.run(t, m, "", linuxSetup(testToken))
	if e := decode(t, r); r.code != ExitSetup || e.Code != "setup_write_failed" || slices.Contains(m.calls, "start") {
		t.Errorf("unwritable state dir: exit %d %+v, calls %q", r.code, e, m.calls)
	}
}

func TestSystemdQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/local/bin/hostgate-agent": "/usr/local/bin/hostgate-agent",
		"/opt/my agent/bin":             `"/opt/my agent/bin"`,
		`/a"b\c`:                        `"/a\"b\\c"`,
		"/x/%h/$HOME":                   "/x/%%h/$$HOME",
		"":                              `""`,
	} {
		if got := systemdQuote(in); got != want {
			t.Errorf("systemdQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// The same credentials again keep the setup file, which may hold newer L1
// settings the hub sent since (settings.update rewrites secret_key).
func TestLinuxRerunKeepsANewerSetupFile(t *testing.T) {
	w := newLinuxWorld(t)
	if r := w.run(t, &fakeMachine{systemd: true}, "", linuxSetup(testToken)); r.code != 0 {
		t.Fatal(r.stderr)
	}
	setup := filepath.Join(w.state, "agent.json")
	var m map[string]any
	_ = json.Unmarshal(mustRead(t, setup), &m)
	m["secret_key"] = "ffeeddccbbaa99887766554433221100"
	b, _ := json.Marshal(m)
	if err := os.WriteFile(setup, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := w.run(t, &fakeMachine{systemd: true}, "", linuxSetup(testToken)); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if got := mustRead(t, setup); !bytes.Equal(got, b) {
		t.Errorf("the rerun replaced the setup file")
	}
}
