package install

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// otherCreds are the credentials of a second issue for the same host: a
// new install token and key pair (the secret key kept).
var (
	otherToken  = "tok-Second-Issue_abcdefghijklmnopqrstuvwxyz0123"
	otherSeed   = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	otherPubkey = "ed25519:" + base64.StdEncoding.EncodeToString(
		ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32)).Public().(ed25519.PublicKey))
)

func otherArgs(dir string) []string {
	a := validArgs(dir)
	for i := range a {
		switch a[i] {
		case testToken:
			a[i] = otherToken
		case testSeed:
			a[i] = otherSeed
		case testPubkey:
			a[i] = otherPubkey
		}
	}
	return a
}

func readSetupFile(t *testing.T, dir string) setupFile {
	t.Helper()
	var s setupFile
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, SetupFileName)), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// Re-running an installer on an installed host with new credentials (the
// hub has rotated the host's keys when it issued them) applies them: the
// service is stopped, everything is written again, and the service is
// stopped once more (the logon worker may have restarted it) and started
// with the new setup. The same credentials again exit 0 at once.
func TestNewCredentialsOnAnInstalledHostAreApplied(t *testing.T) {
	dir := t.TempDir()
	if r := runCommand(t, &fakeSystem{}, validArgs(dir)); r.code != ExitOK {
		t.Fatalf("first install: %d %s", r.code, r.stderr)
	}
	sys := &fakeSystem{serviceExists: true}
	r := runCommand(t, sys, otherArgs(dir))
	if r.code != ExitOK || r.stderr != "" || strings.Count(r.stdout, "\n") != 1 ||
		!strings.Contains(r.stdout, "reinstalled with new credentials") || !strings.Contains(r.stdout, "started") {
		t.Fatalf("rerun: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	want := []string{"StopService", "CopyExecutable", "WriteSetupFile", "InstallService", "CreateLogonTask",
		"AddFirewallRule", "StopService", "StartService"}
	if !reflect.DeepEqual(sys.calls, want) {
		t.Errorf("calls %v, want %v", sys.calls, want)
	}
	if s := readSetupFile(t, dir); s.InstallToken != otherToken || s.AgentPrivkeySeed != otherSeed || s.AgentPubkey != otherPubkey {
		t.Errorf("setup file keeps the old credentials")
	}
	// The same new credentials once more: done, nothing touched.
	again := &fakeSystem{failOn: "StopService"}
	if r := runCommand(t, again, otherArgs(dir)); r.code != ExitOK || len(again.calls) != 0 || !strings.Contains(r.stdout, "already installed") {
		t.Errorf("identical rerun: exit %d calls %v stdout %q", r.code, again.calls, r.stdout)
	}
	// The old installer again is another issue, too: it is applied (the
	// hub decides which key it accepts).
	old := &fakeSystem{serviceExists: true}
	if r := runCommand(t, old, validArgs(dir)); r.code != ExitOK || len(old.calls) != len(want) {
		t.Errorf("older credentials: exit %d calls %v", r.code, old.calls)
	}
}

// After the agent sealed its key (the setup file has no plaintext seed
// any more) the same credentials are still recognised.
func TestSameCredentialsAfterKeyProtection(t *testing.T) {
	dir := t.TempDir()
	if r := runCommand(t, &fakeSystem{}, validArgs(dir)); r.code != ExitOK {
		t.Fatal(r.stderr)
	}
	s := readSetupFile(t, dir)
	s.AgentPrivkeySeed, s.AgentPrivkeySealed, s.KeyProtection = "", "c2VhbGVk", "dpapi-machine"
	s.AgentPubkey = strings.TrimPrefix(s.AgentPubkey, "ed25519:") // bare base64 is the same key
	b, _ := json.Marshal(s)
	if err := os.WriteFile(filepath.Join(dir, SetupFileName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	sys := &fakeSystem{}
	if r := runCommand(t, sys, validArgs(dir)); r.code != ExitOK || len(sys.calls) != 0 {
		t.Errorf("exit %d calls %v", r.code, sys.calls)
	}
	// New credentials replace the sealed key with the new plaintext seed
	// (the agent seals it at its next start).
	if r := runCommand(t, &fakeSystem{serviceExists: true}, otherArgs(dir)); r.code != ExitOK {
		t.Fatal(r.stderr)
	}
	if s := readSetupFile(t, dir); s.AgentPrivkeySealed != "" || s.KeyProtection != "" || s.AgentPrivkeySeed != otherSeed {
		t.Errorf("setup file after new credentials: sealed %q protection %q", s.AgentPrivkeySealed, s.KeyProtection)
	}
}

// A second pass (setup file, no marker) with other credentials installs
// them rather than verifying the old ones.
func TestSecondPassWithNewCredentialsInstalls(t *testing.T) {
	dir := t.TempDir()
	if r := runCommand(t, &fakeSystem{failOn: "CreateLogonTask"}, validArgs(dir)); r.code != ExitTask {
		t.Fatalf("first run: %d", r.code)
	}
	sys := &fakeSystem{serviceExists: true}
	if r := runCommand(t, sys, otherArgs(dir)); r.code != ExitOK || sys.calls[0] != "StopService" || !strings.Contains(r.stdout, "reinstalled") {
		t.Fatalf("exit %d calls %v stdout %q stderr %q", r.code, sys.calls, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, MarkerFileName)); err != nil {
		t.Error("no marker")
	}
}

// A service that will not stop stops the reinstall before anything is
// written, with exit 30.
func TestReinstallWhenTheServiceWillNotStop(t *testing.T) {
	dir := t.TempDir()
	if r := runCommand(t, &fakeSystem{}, validArgs(dir)); r.code != ExitOK {
		t.Fatal(r.stderr)
	}
	r := runCommand(t, &fakeSystem{failOn: "StopService"}, otherArgs(dir))
	if e := decodeFailure(t, r.stderr); r.code != ExitService || e.Code != "service_failed" {
		t.Errorf("exit %d %+v", r.code, e)
	}
	if s := readSetupFile(t, dir); s.InstallToken != testToken {
		t.Error("setup file changed")
	}
}

// --setup-from - takes the credentials from standard input (how the
// PowerShell installer hands them over, so no secret is on a command
// line), flat or as a provisioning payload's "hub"; flags override it.
func TestSetupFromStdin(t *testing.T) {
	flat := map[string]any{"host_id": testHostID, "bid": 42, "secret_key": testSecretKey, "install_token": testToken,
		"agent_privkey_seed": testSeed, "agent_pubkey": testPubkey, "ws_url": "wss://hub.example/v1/internal/agent/ws",
		"api_endpoint": "https://hub.example", "listen_port": 24001, "report_url": "https://report.example/r",
		"exe_url": "ignored", "install_command": map[string]string{"shell": "ignored"}}
	fb, _ := json.Marshal(flat)
	pb, _ := json.Marshal(map[string]any{"schema_version": 1, "hub": flat, "autologon": map[string]string{"username": "x"}})
	for name, in := range map[string][]byte{"flat": append([]byte("\xef\xbb\xbf"), fb...), "payload": pb} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			sys := &fakeSystem{}
			var out, errb bytes.Buffer
			code := Command([]string{"--setup-from", "-", "--state-dir", dir, "--bid", "43"},
				Deps{System: sys, Stdout: &out, Stdin: bytes.NewReader(in), Now: time.Now}, &errb)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			s := readSetupFile(t, dir)
			if s.HostID != testHostID || s.BID != 43 || s.InstallToken != testToken || s.AgentPrivkeySeed != testSeed ||
				s.ListenPort != 24001 || s.ReportURL != "https://report.example/r" || sys.rule.Port != 24001 {
				t.Errorf("setup %+v rule %+v", s, sys.rule)
			}
		})
	}
	for name, tc := range map[string]struct {
		stdin string
		want  string
	}{
		"not json":   {`{"secret_key": "` + testSecretKey, "--setup-from is not valid JSON"},
		"incomplete": {`{"host_id": "` + testHostID + `", "bid": 1}`, "missing --secret-key"},
		"no bid":     {`{"host_id": "` + testHostID + `"}`, "missing --bid"},
	} {
		var out, errb bytes.Buffer
		code := Command([]string{"--setup-from", "-", "--state-dir", t.TempDir()},
			Deps{System: &fakeSystem{}, Stdout: &out, Stdin: strings.NewReader(tc.stdin)}, &errb)
		if code != ExitInternal || !strings.Contains(errb.String(), tc.want) || strings.Contains(errb.String(), testSecretKey) {
			t.Errorf("%s: exit %d stderr %s", name, code, errb.String())
		}
	}
	if _, err := ParseArgs([]string{"--setup-from", "-"}); err == nil || !strings.Contains(err.Error(), "no standard input") {
		t.Errorf("ParseArgs without stdin: %v", err)
	}
}

// The install credentials call the report URL "url" (spec section 2):
// --setup-from given them as they are keeps it as the setup file's
// report_url (agentproto.Setup reads the older spelling). An l1_listen
// passes into the setup file too; a sealed seed never does.
func TestSetupFromCredentialsKeepsTheReportURL(t *testing.T) {
	creds := map[string]any{"host_id": testHostID, "bid": 42, "secret_key": testSecretKey, "url": "https://report.example/r",
		"install_token": testToken, "install_token_expires_at": "2026-01-01T00:00:00Z", "agent_privkey_seed": testSeed,
		"agent_pubkey": testPubkey, "api_endpoint": "https://hub.example", "ws_url": "wss://hub.example/v1/internal/agent/ws",
		"listen_port": 24001, "exe_url": "ignored", "exe_sha256": "ignored", "l1_listen": "0.0.0.0:24001",
		"agent_privkey_sealed": "not an installer's"}
	in, _ := json.Marshal(creds)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := Command([]string{"--setup-from", "-", "--state-dir", dir},
		Deps{System: &fakeSystem{}, Stdout: &out, Stdin: bytes.NewReader(in), Now: time.Now}, &errb)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if s := readSetupFile(t, dir); s.ReportURL != "https://report.example/r" || s.ListenPort != 24001 ||
		s.L1Listen != "0.0.0.0:24001" || s.AgentPrivkeySealed != "" {
		t.Errorf("setup %+v", s)
	}
	b, _ := os.ReadFile(filepath.Join(dir, SetupFileName))
	if !strings.Contains(string(b), `"report_url": "https://report.example/r"`) || strings.Contains(string(b), "exe_url") {
		t.Errorf("setup file:\n%s", b)
	}
}
