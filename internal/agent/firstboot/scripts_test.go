//go:build !windows

package firstboot

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Linux script: 4 without the agent executable; otherwise it runs the
// agent's first-boot with the settings of its environment and exits with
// its code.
func TestLinuxScript(t *testing.T) {
	script, err := Scripts.ReadFile("scripts/first-boot.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "first-boot.sh")
	if err := os.WriteFile(path, script, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(env ...string) (int, string) {
		cmd := exec.Command("sh", path)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	prefix := filepath.Join(dir, "prefix")
	code, out := run("HOSTGATE_PREFIX=" + prefix)
	if code != ExitNoAgent || !strings.Contains(out, "is absent from this image") {
		t.Fatalf("without the agent: exit %d, %q", code, out)
	}
	// A stand-in agent that prints its arguments and exits 3.
	os.MkdirAll(filepath.Join(prefix, "bin"), 0o755)
	fake := "#!/bin/sh\necho \"args: $*\"\nexit 3\n"
	if err := os.WriteFile(filepath.Join(prefix, "bin", "hostgate-agent"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out = run("HOSTGATE_PREFIX="+prefix, "HOSTGATE_STATE_DIR=/s", "HOSTGATE_SOURCE=file:/p.json",
		"HOSTGATE_DEFAULT_API=https://hub.example.com", "HOSTGATE_SERVICE=detached", "HOSTGATE_TIMEOUT=5s")
	want := "args: first-boot --variant simple --source file:/p.json --prefix " + prefix +
		" --state-dir /s --default-api-endpoint https://hub.example.com --service detached --timeout 5s"
	if code != 3 || strings.TrimSpace(out) != want {
		t.Fatalf("exit %d, %q\nwant 3, %q", code, out, want)
	}
}

// The PowerShell script is checked for the same contract by reading it:
// no PowerShell here (docs/provisioning.md says what runs it).
func TestWindowsScriptContract(t *testing.T) {
	b, err := Scripts.ReadFile("scripts/first-boot.ps1")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		`Join-Path $env:ProgramFiles 'hostgate\hostgate-agent.exe'`,
		"exit 4", "'first-boot', '--variant', $Variant, '--source', $Source", "& $Agent @argv", "exit $LASTEXITCODE",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("first-boot.ps1 lacks %q", want)
		}
	}
}
