package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/mgr"

	"hostgate/internal/agent"
	"hostgate/internal/eventually"
)

// TestMain lets this test binary be the restart helper: the service test
// below starts it as "<exe> restart-service ...", the way the agent
// service starts its new executable.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "restart-service" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// Arguments that make this test binary a helper process.
const (
	detachedHelperArg = "hostgate-detached-helper"
	serviceHelperArg  = "hostgate-agent-service-helper"
)

// helperDir is the directory given after arg, or "" when the test binary
// does not run as that helper.
func helperDir(arg string) string {
	args := flag.Args()
	if i := slices.Index(args, arg); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// TestDetachedHelper is what TestStartDetached starts: it records that it
// ran, with its arguments.
func TestDetachedHelper(t *testing.T) {
	dir := helperDir(detachedHelperArg)
	if dir == "" {
		t.Skip("only runs when started by TestStartDetached")
	}
	_ = os.WriteFile(filepath.Join(dir, "ran"), []byte(strings.Join(flag.Args(), " ")), 0o600)
	os.Exit(0)
}

// TestStartDetached is the restart of a foreground agent on Windows: the
// executable starts again, detached, with the given arguments.
func TestStartDetached(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	argv := []string{"ignored-argv0", "-test.run=^TestDetachedHelper$", detachedHelperArg, dir}
	if err := startAgain(self, argv); err != nil {
		t.Fatalf("startAgain: %v", err)
	}
	ran := filepath.Join(dir, "ran")
	var b []byte
	if !eventually.Within(30*time.Second, func() bool {
		b, _ = os.ReadFile(ran)
		return bytes.Contains(b, []byte(detachedHelperArg+" "+dir))
	}) {
		t.Fatalf("%s: %q, not as expected within 30s", ran, b)
	}
}

// startCount appends one line to dir/starts and returns how many there
// are now: how often the service stand-in has started.
func startCount(dir string) int {
	path := filepath.Join(dir, "starts")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err == nil {
		fmt.Fprintln(f, time.Now().Format(time.RFC3339Nano))
		f.Close()
	}
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}

// TestAgentServiceHelper is the agent service as the service manager runs
// it, with an agent that asks for a restart at its first start (as after
// an upgrade) and runs until stopped at the next. Run any other way, it
// does nothing.
func TestAgentServiceHelper(t *testing.T) {
	dir := helperDir(serviceHelperArg)
	if dir == "" {
		t.Skip("only runs under the service manager")
	}
	self, _ := os.Executable()
	first := startCount(dir) == 1
	run := func(ctx context.Context) error {
		if first {
			return &agent.RestartError{Exe: self, Reason: "test upgrade"}
		}
		<-ctx.Done()
		return nil
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// svc.IsWindowsService is false under Wine, hence the argument.
	_ = svc.Run("", newService(run, filepath.Join(dir, "helper.log"), log))
	os.Exit(0)
}

// TestServiceRestartsThroughHelper: a service whose agent stops to
// restart starts "restart-service" from its executable and stops; the
// helper sees it stopped and starts it again, through the real service
// manager.
func TestServiceRestartsThroughHelper(t *testing.T) {
	if !underWine() && !elevated() {
		t.Skip("needs an elevated process (or Wine)")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m, err := mgr.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Disconnect()
	name := fmt.Sprintf("hostgate-agent-restart-test-%d", time.Now().UnixNano())
	s, err := m.CreateService(name, self, mgr.Config{StartType: mgr.StartManual},
		"-test.run=^TestAgentServiceHelper$", serviceHelperArg, dir)
	if err != nil {
		t.Fatalf("create service: %v", err)
	}
	t.Cleanup(func() {
		_, _ = s.Control(svc.Stop)
		_ = s.Delete()
		s.Close()
	})
	if err := s.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}

	var (
		b  []byte
		st svc.Status
	)
	if !eventually.Within(60*time.Second, func() bool {
		b, _ = os.ReadFile(filepath.Join(dir, "starts"))
		var err error
		if st, err = s.Query(); err != nil {
			t.Fatal(err)
		}
		return bytes.Count(b, []byte("\n")) == 2 && st.State == svc.Running
	}) {
		helperLog, _ := os.ReadFile(filepath.Join(dir, "helper.log"))
		t.Fatalf("service state %d after %d starts, want running after 2\nhelper log:\n%s",
			st.State, bytes.Count(b, []byte("\n")), helperLog)
	}
	// The helper logs once it has seen the service run, maybe after us.
	helperLog := filepath.Join(dir, "helper.log")
	if !eventually.Within(30*time.Second, func() bool {
		b, _ = os.ReadFile(helperLog)
		return bytes.Contains(b, []byte("service started again")) && bytes.Contains(b, []byte(name))
	}) {
		t.Fatalf("%s: %q, not as expected within 30s", helperLog, b)
	}
}

func TestServiceExitAfterRestartRequest(t *testing.T) {
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	var gotExe, gotName string
	ok := &service{log: discard, err: &agent.RestartError{Exe: `C:\agent.exe`, Reason: "upgrade to 2.0.0"},
		restart: func(exe, name string) error { gotExe, gotName = exe, name; return nil }}
	if specific, code := ok.exit("hostgate-agent-x"); specific || code != 0 || ok.err != nil {
		t.Errorf("exit = %v, %d (err %v); want a clean stop", specific, code, ok.err)
	}
	if gotExe != `C:\agent.exe` || gotName != "hostgate-agent-x" {
		t.Errorf("helper started from %q for %q", gotExe, gotName)
	}

	failed := &service{log: discard, err: &agent.RestartError{Exe: `C:\agent.exe`, Reason: "upgrade to 2.0.0"},
		restart: func(string, string) error { return errors.New("access denied") }}
	if specific, code := failed.exit("svc"); !specific || code != 1 {
		t.Errorf("exit = %v, %d; want service-specific code 1 so recovery actions apply", specific, code)
	}
	if _, isRestart := errors.AsType[*agent.RestartError](failed.err); isRestart || !strings.Contains(failed.err.Error(), "access denied") {
		t.Errorf("err = %v; want a plain failure, not a restart request", failed.err)
	}
}
