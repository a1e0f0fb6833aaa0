package watchdog

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/mgr"

	"hostgate/internal/agent/svctest"
	"hostgate/internal/eventually"
)

// underWine reports whether the test runs under Wine, whose service
// manager accepts creating and deleting services without elevation.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// helperArg marks the test binary's run by the service manager.
const helperArg = "hostgate-watchdog-service-helper"

// TestServiceHelper is the service the SCM test starts: this test binary,
// run by the service manager, answers as a service until told to stop.
// Run any other way, it does nothing.
func TestServiceHelper(t *testing.T) { svctest.Serve(t, helperArg, 0) }

// TestSCMStartsStoppedService registers this test binary as a service and
// lets the watchdog start it through the real service manager.
func TestSCMStartsStoppedService(t *testing.T) {
	s, name := createHelperService(t)
	scm, _ := NewServices()
	if running, err := scm.Running(name); err != nil || running {
		t.Fatalf("before: running %v, err %v; want stopped", running, err)
	}
	if err := check(scm, name, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatalf("check: %v", err)
	}
	awaitState(t, s, svc.Running)
	if running, err := scm.Running(name); err != nil || !running {
		t.Fatalf("after: running %v, err %v", running, err)
	}
	// A second start of a running service is not an error.
	if err := scm.Start(name); err != nil {
		t.Fatalf("start of a running service: %v", err)
	}
}

// TestSCMRestart runs Restart against the real service manager: it waits
// while the service runs, sees it stop, and starts it again.
func TestSCMRestart(t *testing.T) {
	s, name := createHelperService(t)
	if err := s.Start(); err != nil {
		t.Fatalf("start: %v", err)
	}
	scm, _ := NewServices()
	awaitState(t, s, svc.Running)
	if stopped, err := scm.Stopped(name); err != nil || stopped {
		t.Fatalf("Stopped of a running service: %v, %v", stopped, err)
	}

	done := make(chan error, 1)
	go func() {
		done <- Restart(t.Context(), scm, name, 30*time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	select {
	case err := <-done:
		t.Fatalf("Restart returned while the service still ran: %v", err)
	case <-time.After(time.Second):
	}
	if _, err := s.Control(svc.Stop); err != nil {
		t.Fatalf("stop: %v", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Restart: %v", err)
		}
	case <-time.After(90 * time.Second):
		t.Fatal("Restart did not return")
	}
	awaitState(t, s, svc.Running)
}

// createHelperService registers this test binary as a service that runs
// TestServiceHelper, removed at the end of the test.
func createHelperService(t *testing.T) (*mgr.Service, string) {
	t.Helper()
	if !underWine() && !windows.GetCurrentProcessToken().IsElevated() {
		t.Skip("needs an elevated process (or Wine)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m, err := mgr.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Disconnect() })
	name := fmt.Sprintf("hostgate-watchdog-test-%d", time.Now().UnixNano())
	s, err := m.CreateService(name, exe, mgr.Config{StartType: mgr.StartManual}, "-test.run=^TestServiceHelper$", helperArg)
	if err != nil {
		t.Fatalf("create service: %v", err)
	}
	t.Cleanup(func() {
		_, _ = s.Control(svc.Stop)
		_ = s.Delete()
		s.Close()
	})
	return s, name
}

// awaitState waits until the service is in state.
func awaitState(t *testing.T, s *mgr.Service, state svc.State) {
	t.Helper()
	var st svc.Status
	if !eventually.Within(30*time.Second, func() bool {
		var err error
		if st, err = s.Query(); err != nil {
			t.Fatal(err)
		}
		return st.State == state
	}) {
		t.Fatalf("service state %d, want %d", st.State, state)
	}
}

func TestSCMUnknownService(t *testing.T) {
	scm, _ := NewServices()
	_, err := scm.Running("hostgate-no-such-service")
	if !errors.Is(err, windows.ERROR_SERVICE_DOES_NOT_EXIST) {
		t.Fatalf("err = %v, want ERROR_SERVICE_DOES_NOT_EXIST", err)
	}
}
