package install

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

// fakeSystem records the calls in order and fails the one named in failOn.
// WriteSetupFile really writes, so a later run sees the setup file.
type fakeSystem struct {
	calls         []string
	failOn        string
	serviceExists bool
	service       ServiceSpec
	task          TaskSpec
	rule          FirewallRule
	copiedTo      string
}

var errInjected = errors.New("injected failure")

func (f *fakeSystem) call(name string) error {
	f.calls = append(f.calls, name)
	if f.failOn == name {
		return errInjected
	}
	return nil
}

func (f *fakeSystem) CopyExecutable(dst string) error {
	f.copiedTo = dst
	return f.call("CopyExecutable")
}

func (f *fakeSystem) WriteSetupFile(path string, data []byte) error {
	if err := f.call("WriteSetupFile"); err != nil {
		return err
	}
	return writeFileAtomic(path, data, nil)
}

func (f *fakeSystem) InstallService(spec ServiceSpec) error {
	f.service = spec
	if err := f.call("InstallService"); err != nil {
		return err
	}
	f.serviceExists = true
	return nil
}

func (f *fakeSystem) StartService(name string) error {
	if name != ServiceName {
		return errors.New("started " + name)
	}
	return f.call("StartService")
}

func (f *fakeSystem) StopService(name string) error {
	if name != ServiceName {
		return errors.New("stopped " + name)
	}
	return f.call("StopService")
}

func (f *fakeSystem) ServiceExists(string) (bool, error) {
	return f.serviceExists, f.call("ServiceExists")
}

func (f *fakeSystem) CreateLogonTask(spec TaskSpec) error {
	f.task = spec
	return f.call("CreateLogonTask")
}

func (f *fakeSystem) AddFirewallRule(rule FirewallRule) error {
	f.rule = rule
	return f.call("AddFirewallRule")
}

const (
	testHostID    = "0b5e3c1e-8d4f-4f0e-9a51-3f2c8d7e6a10"
	testSecretKey = "00112233445566778899aabbccddeeff"
	testToken     = "tok-Install-Secret_0123456789abcdefghijklmnopq"
)

var (
	testSeed   = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{9}, 32))
	testPubkey = "ed25519:" + base64.StdEncoding.EncodeToString(
		ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32)).Public().(ed25519.PublicKey))
)

// validArgs are complete install arguments with the state directory dir.
func validArgs(dir string) []string {
	return []string{
		"--host-id", testHostID, "--bid", "42", "--secret-key", testSecretKey,
		"--install-token", testToken, "--agent-privkey-seed", testSeed, "--agent-pubkey", testPubkey,
		"--ws-url", "wss://hub.example/v1/internal/agent/ws", "--api-endpoint", "https://hub.example",
		"--state-dir", dir,
	}
}

type result struct {
	code           int
	stdout, stderr string
}

func runCommand(t *testing.T, sys System, args []string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := Command(args, Deps{System: sys, Stdout: &out, Now: func() time.Time { return time.Unix(1700000000, 0) }}, &errb)
	r := result{code, out.String(), errb.String()}
	for _, secret := range []string{testSecretKey, testToken, testSeed} {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("output shows a secret %q:\nstdout %q\nstderr %q", secret, r.stdout, r.stderr)
		}
	}
	return r
}

// decodeFailure checks stderr is exactly one JSON object and decodes it.
func decodeFailure(t *testing.T, stderr string) Error {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Fatalf("stderr is not one line: %q", stderr)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(stderr), &raw); err != nil {
		t.Fatalf("stderr is not JSON: %q: %v", stderr, err)
	}
	for _, k := range []string{"code", "exit", "msg", "hint"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("stderr JSON lacks %q: %s", k, stderr)
		}
	}
	var e Error
	_ = json.Unmarshal([]byte(stderr), &e)
	return e
}

func TestSuccessPathOrderAndFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	sys := &fakeSystem{}
	args := append(validArgs(dir), "--listen-port", "24000")
	r := runCommand(t, sys, args)
	if r.code != ExitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	want := []string{"CopyExecutable", "WriteSetupFile", "InstallService", "CreateLogonTask", "AddFirewallRule", "StartService"}
	if !reflect.DeepEqual(sys.calls, want) {
		t.Errorf("calls %v, want %v", sys.calls, want)
	}
	if strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, testHostID) || !strings.Contains(r.stdout, "service hostgate-agent started") {
		t.Errorf("stdout %q: want one line naming the host and the started service", r.stdout)
	}

	setupPath := filepath.Join(dir, SetupFileName)
	if sys.copiedTo != DefaultInstallPath() {
		t.Errorf("copied to %q, want %q", sys.copiedTo, DefaultInstallPath())
	}
	wantSvc := ServiceSpec{Name: ServiceName, ExePath: DefaultInstallPath(), Args: []string{"run", "--config", setupPath}}
	if sys.service.Name != wantSvc.Name || sys.service.ExePath != wantSvc.ExePath || !reflect.DeepEqual(sys.service.Args, wantSvc.Args) {
		t.Errorf("service %+v, want %+v", sys.service, wantSvc)
	}
	if sys.task.Name != TaskName || sys.task.ExePath != DefaultInstallPath() ||
		!reflect.DeepEqual(sys.task.Args, []string{WorkerCommand, "--config", setupPath}) {
		t.Errorf("task %+v", sys.task)
	}
	if sys.rule != (FirewallRule{Name: FirewallRuleName, Port: 24000}) {
		t.Errorf("firewall rule %+v", sys.rule)
	}

	b, err := os.ReadFile(setupPath)
	if err != nil {
		t.Fatal(err)
	}
	var s setupFile
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	wantSetup := setupFile{Issued: agentproto.Issued{HostID: testHostID, BID: 42, SecretKey: testSecretKey, InstallToken: testToken,
		AgentPrivkeySeed: testSeed, AgentPubkey: testPubkey, WSURL: "wss://hub.example/v1/internal/agent/ws",
		APIEndpoint: "https://hub.example", ListenPort: 24000}, StateDir: dir}
	if s != wantSetup {
		t.Errorf("setup file %+v, want %+v", s, wantSetup)
	}
	for _, name := range []string{SetupFileName, MarkerFileName} {
		if runtime.GOOS == "windows" {
			break // ACLs, not modes
		}
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", name, fi.Mode().Perm())
		}
	}
	if fi, err := os.Stat(dir); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700) {
		t.Errorf("state dir: %v %v", fi.Mode(), err)
	}
	var m marker
	if b, err := os.ReadFile(filepath.Join(dir, MarkerFileName)); err != nil || json.Unmarshal(b, &m) != nil || m.HostID != testHostID {
		t.Errorf("marker %+v, %v", m, err)
	}
	if strings.Contains(string(mustRead(t, filepath.Join(dir, MarkerFileName))), testToken) {
		t.Error("marker holds a secret")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("state dir holds %d entries, want setup file and marker only", len(entries))
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDefaultListenPort(t *testing.T) {
	sys := &fakeSystem{}
	if r := runCommand(t, sys, validArgs(t.TempDir())); r.code != ExitOK {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if sys.rule.Port != DefaultListenPort {
		t.Errorf("port %d, want %d", sys.rule.Port, DefaultListenPort)
	}
}

func TestMarkerMakesLaterRunsExitAtOnce(t *testing.T) {
	dir := t.TempDir()
	if r := runCommand(t, &fakeSystem{}, validArgs(dir)); r.code != ExitOK {
		t.Fatalf("first run: exit %d %s", r.code, r.stderr)
	}
	before := mustRead(t, filepath.Join(dir, MarkerFileName))
	// Even with arguments that would not validate, and a system that
	// would fail every call: nothing is called.
	for _, args := range [][]string{validArgs(dir), {"--state-dir", dir, "--bid", "1"}} {
		sys := &fakeSystem{failOn: "CopyExecutable"}
		r := runCommand(t, sys, args)
		if r.code != ExitOK || r.stderr != "" || strings.Count(r.stdout, "\n") != 1 {
			t.Errorf("rerun: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
		}
		if len(sys.calls) != 0 {
			t.Errorf("rerun called %v", sys.calls)
		}
	}
	if !bytes.Equal(before, mustRead(t, filepath.Join(dir, MarkerFileName))) {
		t.Error("marker rewritten")
	}
}

func TestSecondPassOnlyVerifies(t *testing.T) {
	dir := t.TempDir()
	// An interrupted first run: the setup file and the service exist, the
	// task step failed.
	first := &fakeSystem{failOn: "CreateLogonTask"}
	if r := runCommand(t, first, validArgs(dir)); r.code != ExitTask {
		t.Fatalf("first run: exit %d, want %d", r.code, ExitTask)
	}
	if _, err := os.Stat(filepath.Join(dir, MarkerFileName)); err == nil {
		t.Fatal("marker written after a failure")
	}

	sys := &fakeSystem{serviceExists: true}
	r := runCommand(t, sys, validArgs(dir))
	if r.code != ExitOK || r.stderr != "" || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("second pass: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if !reflect.DeepEqual(sys.calls, []string{"ServiceExists", "StartService"}) {
		t.Errorf("second pass called %v, want ServiceExists, StartService", sys.calls)
	}
	if _, err := os.Stat(filepath.Join(dir, MarkerFileName)); err != nil {
		t.Errorf("marker: %v", err)
	}
	// Third run: done.
	third := &fakeSystem{}
	if r := runCommand(t, third, validArgs(dir)); r.code != ExitOK || len(third.calls) != 0 {
		t.Errorf("third run: exit %d calls %v", r.code, third.calls)
	}
}

func TestSecondPassFailures(t *testing.T) {
	writeSetup := func(t *testing.T, content string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, SetupFileName), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	valid, _ := json.Marshal(setupFile{Issued: agentproto.Issued{HostID: testHostID, BID: 1, SecretKey: testSecretKey, InstallToken: testToken,
		AgentPrivkeySeed: testSeed, AgentPubkey: testPubkey, WSURL: "wss://h/ws", APIEndpoint: "https://h"}})
	// The same credentials (so a second pass, not new ones) in a setup
	// file the agent would refuse.
	invalid, _ := json.Marshal(setupFile{Issued: agentproto.Issued{HostID: testHostID, SecretKey: testSecretKey, InstallToken: testToken,
		AgentPrivkeySeed: testSeed, AgentPubkey: testPubkey, WSURL: "ftp://h/ws", APIEndpoint: "https://h"}})
	cases := []struct {
		name     string
		content  string
		sys      *fakeSystem
		exit     int
		code     string
		wantCall bool
	}{
		{"not json", `{"host_id": "` + testToken, &fakeSystem{serviceExists: true}, ExitSetup, "setup_invalid", false},
		{"invalid config", string(invalid), &fakeSystem{serviceExists: true}, ExitSetup, "setup_invalid", false},
		{"service missing", string(valid), &fakeSystem{}, ExitService, "service_missing", true},
		{"service query fails", string(valid), &fakeSystem{failOn: "ServiceExists"}, ExitService, "service_failed", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeSetup(t, c.content)
			r := runCommand(t, c.sys, validArgs(dir))
			e := decodeFailure(t, r.stderr)
			if r.code != c.exit || e.Exit != c.exit || e.Code != c.code {
				t.Errorf("exit %d, JSON %+v; want %d %s", r.code, e, c.exit, c.code)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q", r.stdout)
			}
			if got := len(c.sys.calls) > 0; got != c.wantCall || len(c.sys.calls) > 1 {
				t.Errorf("calls %v", c.sys.calls)
			}
			if _, err := os.Stat(filepath.Join(dir, MarkerFileName)); err == nil {
				t.Error("marker written")
			}
		})
	}
}

func TestEachFailingStep(t *testing.T) {
	steps := []string{"CopyExecutable", "WriteSetupFile", "InstallService", "CreateLogonTask", "AddFirewallRule"}
	cases := []struct {
		step string
		exit int
		code string
	}{
		{"CopyExecutable", ExitCopy, "copy_failed"},
		{"WriteSetupFile", ExitSetup, "setup_write_failed"},
		{"InstallService", ExitService, "service_failed"},
		{"CreateLogonTask", ExitTask, "task_failed"},
		{"AddFirewallRule", ExitFirewall, "firewall_failed"},
	}
	for i, c := range cases {
		t.Run(c.step, func(t *testing.T) {
			dir := t.TempDir()
			sys := &fakeSystem{failOn: c.step}
			r := runCommand(t, sys, validArgs(dir))
			if r.code != c.exit {
				t.Errorf("exit %d, want %d", r.code, c.exit)
			}
			e := decodeFailure(t, r.stderr)
			if e.Code != c.code || e.Exit != c.exit || !strings.Contains(e.Msg, errInjected.Error()) || e.Hint == "" {
				t.Errorf("JSON %+v", e)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q on failure", r.stdout)
			}
			if !reflect.DeepEqual(sys.calls, steps[:i+1]) {
				t.Errorf("calls %v, want %v (stop at the failure)", sys.calls, steps[:i+1])
			}
			if _, err := os.Stat(filepath.Join(dir, MarkerFileName)); err == nil {
				t.Error("marker written after a failure")
			}
		})
	}
}

func TestStateDirUnwritable(t *testing.T) {
	parent := t.TempDir()
	blocker := filepath.Join(parent, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sys := &fakeSystem{}
	r := runCommand(t, sys, validArgs(filepath.Join(blocker, "state")))
	if e := decodeFailure(t, r.stderr); r.code != ExitSetup || e.Code != "setup_write_failed" {
		t.Errorf("exit %d JSON %+v", r.code, e)
	}
	if !reflect.DeepEqual(sys.calls, []string{"CopyExecutable"}) {
		t.Errorf("calls %v", sys.calls)
	}
}

func TestArgumentValidation(t *testing.T) {
	dir := t.TempDir()
	without := func(flag string) []string {
		var out []string
		args := validArgs(dir)
		for i := 0; i < len(args); i += 2 {
			if args[i] != flag {
				out = append(out, args[i], args[i+1])
			}
		}
		return out
	}
	with := func(flag, value string) []string {
		args := validArgs(dir)
		for i := 0; i < len(args); i += 2 {
			if args[i] == flag {
				args[i+1] = value
			}
		}
		return args
	}
	cases := []struct {
		name string
		args []string
		code string
		in   string // in msg
	}{
		{"no args", nil, "missing_argument", "--bid"},
		{"no host id", without("--host-id"), "missing_argument", "--host-id"},
		{"no bid", without("--bid"), "missing_argument", "--bid"},
		{"no secret key", without("--secret-key"), "missing_argument", "--secret-key"},
		{"no install token", without("--install-token"), "missing_argument", "--install-token"},
		{"no seed", without("--agent-privkey-seed"), "missing_argument", "--agent-privkey-seed"},
		{"no pubkey", without("--agent-pubkey"), "missing_argument", "--agent-pubkey"},
		{"no ws url", without("--ws-url"), "missing_argument", "--ws-url"},
		{"no api endpoint", without("--api-endpoint"), "missing_argument", "--api-endpoint"},
		{"bad host id", with("--host-id", "not-a-uuid"), "invalid_argument", "host_id"},
		{"bad bid", with("--bid", "x"), "invalid_argument", "bid"},
		{"negative bid", with("--bid", "-3"), "invalid_argument", "bid"},
		{"pubkey mismatch", with("--agent-pubkey", "ed25519:"+base64.StdEncoding.EncodeToString(make([]byte, 32))), "invalid_argument", "agent_pubkey"},
		{"short seed", with("--agent-privkey-seed", "AAAA"+testToken[:8]), "invalid_argument", "agent_privkey_seed"},
		{"bad ws url", with("--ws-url", "https://x"), "invalid_argument", "ws_url"},
		{"bad port", append(validArgs(dir), "--listen-port", "70000"), "invalid_argument", "listen-port"},
		{"zero port", append(validArgs(dir), "--listen-port", "0"), "invalid_argument", "listen-port"},
		{"unknown flag", append(validArgs(dir), "--bogus", "1"), "invalid_argument", "bogus"},
		{"positional", append(validArgs(dir), "extra"), "invalid_argument", "unexpected"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sys := &fakeSystem{}
			r := runCommand(t, sys, c.args)
			e := decodeFailure(t, r.stderr)
			if r.code != ExitInternal || e.Exit != ExitInternal || e.Code != c.code || !strings.Contains(e.Msg, c.in) {
				t.Errorf("exit %d JSON %+v; want 1 %s mentioning %q", r.code, e, c.code, c.in)
			}
			if len(sys.calls) != 0 {
				t.Errorf("calls %v before validation", sys.calls)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("state dir touched: %d entries", len(entries))
	}
}

func TestHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Command([]string{"--help"}, Deps{System: &fakeSystem{}, Stdout: &out}, &errb); code != ExitOK ||
		!strings.Contains(out.String(), "--install-template") {
		t.Errorf("help: %d %q %q", code, out.String(), errb.String())
	}
}

func TestRedactsSecretsThatSlipIntoMessages(t *testing.T) {
	var errb bytes.Buffer
	opts := Options{Setup: agentproto.Setup{Issued: agentproto.Issued{SecretKey: testSecretKey, InstallToken: testToken, AgentPrivkeySeed: testSeed}}}
	report(&errb, fail("x", ExitInternal, "hint "+testSeed, "msg "+testToken+" "+testSecretKey, nil), opts)
	s := errb.String()
	if strings.Contains(s, testToken) || strings.Contains(s, testSecretKey) || strings.Contains(s, testSeed) {
		t.Errorf("not redacted: %s", s)
	}
	// A non-*Error becomes "internal".
	errb.Reset()
	report(&errb, errors.New("boom"), Options{})
	if e := decodeFailure(t, errb.String()); e.Code != "internal" || e.Exit != ExitInternal {
		t.Errorf("%+v", e)
	}
	if ExitCode(errors.New("x")) != ExitInternal || ExitCode(nil) != ExitOK {
		t.Error("ExitCode")
	}
}

func TestNoSystemIsInternal(t *testing.T) {
	if err := Run(Options{Setup: agentproto.Setup{StateDir: t.TempDir()}}, Deps{}); ExitCode(err) != ExitInternal {
		t.Errorf("%v", err)
	}
}

func TestOptionsViaRunDefaultPort(t *testing.T) {
	sys := &fakeSystem{}
	err := Run(Options{Setup: agentproto.Setup{Issued: agentproto.Issued{HostID: testHostID, BID: 1, SecretKey: testSecretKey, InstallToken: testToken,
		AgentPrivkeySeed: testSeed, AgentPubkey: testPubkey, WSURL: "ws://127.0.0.1:1/ws",
		APIEndpoint: "http://127.0.0.1:1"}, StateDir: t.TempDir()}, InstallPath: "/opt/x/agent"}, Deps{System: sys})
	if err != nil {
		t.Fatal(err)
	}
	if sys.rule.Port != DefaultListenPort || sys.copiedTo != "/opt/x/agent" || sys.service.ExePath != "/opt/x/agent" {
		t.Errorf("rule %+v copied %q service %+v", sys.rule, sys.copiedTo, sys.service)
	}
	if strconv.Itoa(DefaultListenPort) != "23456" {
		t.Error("default port")
	}
}

// TestServiceThatWillNotStartNow: the install is complete (exit 0, marker
// written) when the service cannot start at once; the line says so.
func TestServiceThatWillNotStartNow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	sys := &fakeSystem{failOn: "StartService"}
	r := runCommand(t, sys, validArgs(dir))
	if r.code != ExitOK || r.stderr != "" || strings.Count(r.stdout, "\n") != 1 ||
		!strings.Contains(r.stdout, "not started now") || !strings.Contains(r.stdout, "next boot") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, MarkerFileName)); err != nil {
		t.Errorf("marker: %v", err)
	}
}
