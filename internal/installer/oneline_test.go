package installer

import (
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"hostgate/internal/apperr"
)

func TestPipedPowerShellRunsInTheCallersSession(t *testing.T) {
	s, err := Piped(creds())
	if err != nil {
		t.Fatal(err)
	}
	body := string(s.Body)
	lines := strings.Split(strings.TrimRight(body, "\r\n"), "\r\n")
	if lines[2] != "& {" || lines[len(lines)-1] != "}" {
		t.Errorf("the piped script is not one script block:\n%s", body)
	}
	if regexp.MustCompile(`\bexit [0-9$]`).MatchString(body) {
		t.Errorf("the piped script exits, which would close the user's window:\n%s", body)
	}
	for _, want := range []string{"--install-template --setup-from -", `"install_token":"tok-123"`,
		"throw 'agent executable checksum mismatch; nothing was installed'", "failed with exit code $code"} {
		if !strings.Contains(body, want) {
			t.Errorf("piped script lacks %q", want)
		}
	}
	c := creds()
	c.ExeURL = ""
	if _, err := Piped(c); apperr.Code(err) != CodeExeNotConfigured {
		t.Errorf("no exe: %v", err)
	}
}

func TestShellScript(t *testing.T) {
	c := creds()
	c.URL = "https://report.example/x"
	bins := []Binary{
		{Arch: "amd64", URL: "https://hub.example.com/download/hostgate-agent-linux-amd64", SHA256: strings.Repeat("AB", 32)},
		{Arch: "arm64", URL: "https://hub.example.com/it's/arm64", SHA256: strings.Repeat("cd", 32)},
	}
	s, err := Shell(c, bins)
	if err != nil {
		t.Fatal(err)
	}
	body := string(s.Body)
	for _, want := range []string{
		"#!/bin/sh\n",
		"amd64) url='https://hub.example.com/download/hostgate-agent-linux-amd64' sum='" + strings.Repeat("ab", 32) + "' ;;",
		`arm64) url='https://hub.example.com/it'\''s/arm64'`,
		"x86_64|amd64) arch=amd64", "aarch64|arm64) arch=arm64",
		"$SUDO sha256sum", "$SUDO \"$tmp\" install --prefix \"$prefix\" --state-dir \"$state\" --service \"$service\" --config - <<'HOSTGATE_CONFIG_END'\n{",
		"exit 5\n",
		`"install_token":"tok-123"`, `"host_id":"` + c.HostID + `"`, `"report_url":"https://report.example/x"`,
		"\nhostgate_install\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("script lacks %q", want)
		}
	}
	if strings.Contains(body, "@HOST_ID@") || strings.Contains(body, "@BINARIES@") || strings.Contains(body, "@CONFIG@") {
		t.Errorf("a placeholder is left")
	}
	if runtime.GOOS != "windows" {
		if out, err := exec.Command("sh", "-n", "-c", body).CombinedOutput(); err != nil {
			t.Errorf("sh -n: %v\n%s", err, out)
		}
	}
	if _, err := Shell(c, nil); apperr.Code(err) != CodeExeNotConfigured {
		t.Errorf("no binaries: %v", err)
	}
}
