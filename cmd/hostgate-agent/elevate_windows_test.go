package main

import (
	"flag"
	"os"
	"slices"
	"testing"

	"golang.org/x/sys/windows"
)

// elevateHelperArg marks the test binary's run by TestRelaunchElevated.
const elevateHelperArg = "hostgate-elevate-helper"

// TestElevateHelper is the process TestRelaunchElevated starts: it exits
// with a code the parent must see.
func TestElevateHelper(t *testing.T) {
	if !slices.Contains(flag.Args(), elevateHelperArg) {
		t.Skip("only runs when started by TestRelaunchElevated")
	}
	os.Exit(23)
}

// TestRelaunchElevated runs the ShellExecuteEx path for real. On Windows
// it would raise a UAC prompt, so it runs only where there is none: under
// Wine, whose "runas" starts the process directly, or when the test is
// already elevated (no prompt then either).
func TestRelaunchElevated(t *testing.T) {
	if !underWine() && !elevated() {
		t.Skip("would show a UAC prompt")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	code, err := relaunchElevated(exe, []string{"-test.run=^TestElevateHelper$", elevateHelperArg})
	if err != nil {
		t.Fatalf("relaunch: %v", err)
	}
	if code != 23 {
		t.Fatalf("exit code %d, want the helper's 23", code)
	}
}

// underWine reports whether the test runs under Wine.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
