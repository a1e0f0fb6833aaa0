package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

func TestWorkerUsage(t *testing.T) {
	for _, args := range [][]string{{"worker", "extra"}, {"worker", "--interval", "0s"}, {"worker", "--bogus"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%q: exit %d, want %d (stderr %q)", args, code, exitUsage, errb.String())
		}
	}
}

func TestWorkerNeedsWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the worker runs here; package watchdog tests it against the service manager")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"worker", "--config", "agent.json"}, &out, &errb); code != exitInternal ||
		!strings.Contains(errb.String(), "Windows only") {
		t.Fatalf("exit %d, stderr %q; want %d and the reason", code, errb.String(), exitInternal)
	}
}
