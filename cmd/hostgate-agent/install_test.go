package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestInstallTemplateModeIsWired(t *testing.T) {
	var out, errb bytes.Buffer
	if runtime.GOOS == "windows" {
		// Only the help: a real run would change the system.
		if code := run([]string{"--install-template", "--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "--install-template") {
			t.Errorf("--install-template --help: exit %d stdout %q stderr %q", code, out.String(), errb.String())
		}
		return
	}
	code := run([]string{"--install-template", "--host-id", "x", "--secret-key", "s3cr3t-value"}, &out, &errb)
	var e struct {
		Code string `json:"code"`
		Exit int    `json:"exit"`
		Msg  string `json:"msg"`
		Hint string `json:"hint"`
	}
	if err := json.Unmarshal(errb.Bytes(), &e); err != nil {
		t.Fatalf("stderr is not JSON: %q", errb.String())
	}
	if code != 1 || e.Exit != 1 || e.Code != "unsupported" || !strings.Contains(e.Msg, "only supported on Windows") {
		t.Errorf("exit %d, %+v", code, e)
	}
	if out.Len() != 0 || strings.Contains(errb.String(), "s3cr3t-value") {
		t.Errorf("stdout %q stderr %q", out.String(), errb.String())
	}
}

func TestLinuxInstallIsWired(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"install", "--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "hostgate-agent install --config") {
		t.Errorf("install --help: exit %d stdout %q stderr %q", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	code := run([]string{"install"}, &out, &errb)
	var e struct{ Code string }
	if err := json.Unmarshal(errb.Bytes(), &e); err != nil {
		t.Fatalf("stderr is not JSON: %q", errb.String())
	}
	if code != 1 || e.Code != "missing_argument" {
		t.Errorf("install without --config: exit %d, code %q, want 1 missing_argument", code, e.Code)
	}
	if runtime.GOOS == "windows" {
		cfg := filepath.Join(t.TempDir(), "agent.json")
		if err := os.WriteFile(cfg, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		errb.Reset()
		code = run([]string{"install", "--config", cfg}, &out, &errb)
		if err := json.Unmarshal(errb.Bytes(), &e); err != nil || code != 1 || e.Code != "unsupported" {
			t.Errorf("install on Windows: exit %d, stderr %q, want unsupported", code, errb.String())
		}
	}
}
