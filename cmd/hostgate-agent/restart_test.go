package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agent"
)

func TestUpgradeConfirmTimeoutSetting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.json")
	if err := os.WriteFile(path, []byte(`{"upgrade_confirm_timeout": "5m"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want time.Duration
	}{
		{nil, 0}, // the agent's default applies
		{[]string{"--config", path}, 5 * time.Minute},
		{[]string{"--config", path, "--upgrade-confirm-timeout", "90s"}, 90 * time.Second},
	}
	for _, tt := range tests {
		cfg, _, err := parseRun(tt.args, &bytes.Buffer{})
		if err != nil || cfg.UpgradeConfirmTimeout != tt.want {
			t.Errorf("parseRun(%q): %v, %v; want %v", tt.args, cfg.UpgradeConfirmTimeout, err, tt.want)
		}
	}
	for _, bad := range []string{"soon", "-1s"} {
		if _, _, err := parseRun([]string{"--upgrade-confirm-timeout", bad}, &bytes.Buffer{}); err == nil {
			t.Errorf("--upgrade-confirm-timeout %s accepted", bad)
		}
	}
}

func TestRestartServiceUsage(t *testing.T) {
	for _, args := range [][]string{{"restart-service", "extra"}, {"restart-service", "--wait", "0s"}, {"restart-service", "--bogus"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%q: exit %d, want %d (stderr %q)", args, code, exitUsage, errb.String())
		}
	}
	if runtime.GOOS == "windows" {
		return // TestServiceRestartsThroughHelper runs it for real
	}
	var out, errb bytes.Buffer
	if code := run([]string{"restart-service", "--service", "x"}, &out, &errb); code != exitInternal ||
		!strings.Contains(errb.String(), "Windows only") {
		t.Errorf("exit %d, stderr %q; want %d and the reason", code, errb.String(), exitInternal)
	}
}

// TestFailedRestartExitsNonZero: when the executable cannot be started,
// the program exits 1 so that a supervisor starts the agent again.
func TestFailedRestartExitsNonZero(t *testing.T) {
	notAProgram := filepath.Join(t.TempDir(), "hostgate-agent.exe")
	if err := os.WriteFile(notAProgram, []byte("\x00\x01 not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	if code := restart(&agent.RestartError{Exe: notAProgram, Reason: "test"}, &errb); code != exitInternal {
		t.Fatalf("exit %d, want %d", code, exitInternal)
	}
	if !strings.Contains(errb.String(), "restart into "+notAProgram+" failed") {
		t.Errorf("stderr %q", errb.String())
	}
}

func TestHeartbeatSetting(t *testing.T) {
	for _, tt := range []struct {
		env  string
		want time.Duration
		ok   bool
	}{
		{"", 0, true}, // the hub's interval applies
		{"10s", 10 * time.Second, true},
		{"1s", time.Second, true},
		{"25s", 25 * time.Second, true},
		{"500ms", 0, false},
		{"26s", 0, false},
		{"-5s", 0, false},
		{"soon", 0, false},
	} {
		t.Setenv(agent.HeartbeatEnv, tt.env)
		cfg, _, err := parseRun(nil, &bytes.Buffer{})
		if (err == nil) != tt.ok || cfg.HeartbeatOverride != tt.want {
			t.Errorf("%s=%q: %v, %v; want %v (accepted %v)", agent.HeartbeatEnv, tt.env, cfg.HeartbeatOverride, err, tt.want, tt.ok)
		}
	}
}
