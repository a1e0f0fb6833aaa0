package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hostgate/internal/agent"
)

func TestVersionAndUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, &out, &errb); code != exitOK || !strings.Contains(out.String(), agent.Version) {
		t.Errorf("version: %d %q", code, out.String())
	}
	for _, args := range [][]string{nil, {"bogus"}, {"run", "--no-such-flag"}, {"run", "extra"},
		{"run", "--log-level", "loud"}, {"run"}, {"run", "--config", "/does/not/exist.json"}} {
		out.Reset()
		errb.Reset()
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%q: exit %d, want %d (stderr %q)", args, code, exitUsage, errb.String())
		}
	}
	if code := run([]string{"run", "--help"}, &out, &errb); code != exitOK {
		t.Errorf("run --help: exit %d", code)
	}
}

func TestInvalidConfigIsAUsageErrorWithoutSecrets(t *testing.T) {
	var out, errb bytes.Buffer
	seed := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
	code := run([]string{"run", "--host-id", "not-a-uuid", "--agent-privkey-seed", seed, "--agent-pubkey", "ed25519:AAAA",
		"--install-token", "install-secret-xyz", "--ws-url", "http://x", "--api-endpoint", "https://x"}, &out, &errb)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
	msg := errb.String()
	for _, want := range []string{"host_id", "agent_pubkey", "ws_url"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr %q does not name %s", msg, want)
		}
	}
	if strings.Contains(msg, seed) || strings.Contains(msg, "install-secret-xyz") {
		t.Errorf("stderr shows a secret: %q", msg)
	}
}

func TestConfigFileAndFlagOverrides(t *testing.T) {
	seed := bytes.Repeat([]byte{1}, 32)
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	file := map[string]any{
		"host_id":            "0b5e3c1e-8d4f-4f0e-9a51-3f2c8d7e6a10",
		"bid":                7,
		"secret_key":         "00112233445566778899aabbccddeeff",
		"install_token":      "from-file",
		"agent_privkey_seed": base64.StdEncoding.EncodeToString(seed),
		"agent_pubkey":       "ed25519:" + base64.StdEncoding.EncodeToString(pub),
		"ws_url":             "wss://file.example/ws",
		"api_endpoint":       "https://file.example",
		"state_dir":          "/var/lib/from-file",
		"exe_url":            "https://ignored.example/agent.exe", // install credentials carry more keys
	}
	b, _ := json.Marshal(file)
	path := filepath.Join(t.TempDir(), "agent.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := parseRun([]string{"--config", path, "--install-token", "from-flag", "--bid", "9", "--state-dir", "/tmp/s"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.InstallToken != "from-flag" || cfg.BID != 9 || cfg.StateDir != "/tmp/s" {
		t.Errorf("flags did not override: %+v", cfg)
	}
	if cfg.HostID != file["host_id"] || cfg.WSURL != "wss://file.example/ws" || cfg.SecretKey != file["secret_key"] ||
		cfg.APIEndpoint != "https://file.example" || cfg.AgentPubkey != file["agent_pubkey"] {
		t.Errorf("file values lost: %+v", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("merged config invalid: %v", err)
	}

	if err := os.WriteFile(path, []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := parseRun([]string{"--config", path}, &bytes.Buffer{}); err == nil {
		t.Error("broken config file accepted")
	}
}

func TestUnusableStateDirIsAnInternalError(t *testing.T) {
	seed := bytes.Repeat([]byte{2}, 32)
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"run", "--host-id", "0b5e3c1e-8d4f-4f0e-9a51-3f2c8d7e6a10",
		"--agent-privkey-seed", base64.StdEncoding.EncodeToString(seed),
		"--agent-pubkey", base64.StdEncoding.EncodeToString(pub),
		"--ws-url", "ws://127.0.0.1:1/ws", "--api-endpoint", "http://127.0.0.1:1",
		"--state-dir", filepath.Join(blocker, "state")}, &out, &errb)
	if code != exitInternal {
		t.Errorf("exit %d, want %d (stderr %q)", code, exitInternal, errb.String())
	}
	checkStateDirMessage(t, errb.String(), filepath.Join(blocker, "state"))
}

// checkStateDirMessage checks that the agent said, in one line, which
// state directory it cannot write and how to choose another.
func checkStateDirMessage(t *testing.T, stderr, dir string) {
	t.Helper()
	msg := strings.TrimSpace(stderr)
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "state directory "+dir+" cannot be written") ||
		!strings.Contains(msg, "--state-dir") {
		t.Errorf("stderr %q: want one line naming %s and --state-dir", stderr, dir)
	}
}

// TestSettingsFileChoice: settings.update writes the --config file unless
// a flag overrides its L1 settings (then settings.json in the state
// directory); report_url and l1_listen come from the file or the flags.
func TestSettingsFileChoice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.json")
	if err := os.WriteFile(path, []byte(`{"report_url":"https://r.example/x","l1_listen":"0.0.0.0:23456"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", path}, path},
		{[]string{"--config", path, "--l1-listen", "off"}, path},
		{[]string{"--config", path, "--bid", "3"}, ""},
		{[]string{"--config", path, "--report-url", "https://flag.example/"}, ""},
		{[]string{"--bid", "3"}, ""},
	} {
		cfg, _, err := parseRun(tc.args, &bytes.Buffer{})
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if cfg.SettingsFile != tc.want {
			t.Errorf("%v: SettingsFile = %q, want %q", tc.args, cfg.SettingsFile, tc.want)
		}
	}
	cfg, _, _ := parseRun([]string{"--config", path, "--l1-listen", "off"}, &bytes.Buffer{})
	if cfg.ReportURL != "https://r.example/x" || cfg.L1Listen != "off" {
		t.Errorf("report_url %q, l1_listen %q", cfg.ReportURL, cfg.L1Listen)
	}
}

// A setup file made from the install credentials as they are names the
// report URL "url": the agent reads it as report_url (agentproto.Setup),
// and report_url wins when the file has both.
func TestConfigFileOlderURLSpelling(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.json")
	for doc, want := range map[string]string{
		`{"url":"https://old.example/r","l1_listen":"off"}`:                                      "https://old.example/r",
		`{"url":"https://old.example/r","report_url":"https://new.example/r","l1_listen":"off"}`: "https://new.example/r",
	} {
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, _, err := parseRun([]string{"--config", path}, &bytes.Buffer{})
		if err != nil || cfg.ReportURL != want || cfg.L1Listen != "off" {
			t.Errorf("%s: report_url %q l1_listen %q (%v), want %q", doc, cfg.ReportURL, cfg.L1Listen, err, want)
		}
	}
}
