package install

import (
	"fmt"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/mgr"

	"hostgate/internal/agent/svctest"
	"hostgate/internal/eventually"
)

// startHelperArg marks the test binary's run by the service manager.
const startHelperArg = "hostgate-install-start-helper"

// TestStartHelperService is the service TestInstalledServiceStartsAtOnce
// registers: this test binary, run by the service manager, answers as a
// service until told to stop. Run any other way, it does nothing.
func TestStartHelperService(t *testing.T) { svctest.Serve(t, startHelperArg, 0) }

// TestInstalledServiceStartsAtOnce registers a service as the template
// install does (InstallService) and starts it as the install now does
// (StartService), through the real service manager; a second start of
// the running service is success.
func TestInstalledServiceStartsAtOnce(t *testing.T) {
	requireAdmin(t)
	sys := windowsSystem{}
	name := fmt.Sprintf("hostgate-start-test-%d", time.Now().UnixNano())
	s := installHelperService(t, sys, name)
	if err := sys.StartService(name); err != nil {
		t.Fatalf("start: %v", err)
	}
	var st svc.Status
	var err error
	if !eventually.Within(30*time.Second, func() bool {
		st, err = s.Query()
		return err == nil && st.State == svc.Running
	}) {
		t.Fatalf("service not running 30 s after the start (state %v, err %v)", st.State, err)
	}
	if err := sys.StartService(name); err != nil {
		t.Errorf("second start of the running service: %v", err)
	}
}

// TestStopServiceForReinstall: StopService, which a reinstall with new
// credentials runs before and after it rewrites the setup, stops the
// running service and waits until it has stopped; a stopped or absent
// service is success.
func TestStopServiceForReinstall(t *testing.T) {
	requireAdmin(t)
	sys := windowsSystem{}
	name := fmt.Sprintf("hostgate-stop-test-%d", time.Now().UnixNano())
	if err := sys.StopService(name); err != nil {
		t.Errorf("stop of an absent service: %v", err)
	}
	s := installHelperService(t, sys, name)
	if err := sys.StopService(name); err != nil {
		t.Errorf("stop of a stopped service: %v", err)
	}
	if err := sys.StartService(name); err != nil {
		t.Fatalf("start: %v", err)
	}
	if err := sys.StopService(name); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if st, err := s.Query(); err != nil || st.State != svc.Stopped {
		t.Errorf("after StopService: state %v, err %v", st.State, err)
	}
	if err := sys.StartService(name); err != nil {
		t.Errorf("start after the stop: %v", err)
	}
}

// installHelperService registers this test binary as the service name,
// run as TestStartHelperService, the way the template install registers
// the agent (InstallService), and opens it; the service is stopped and
// deleted when the test ends.
func installHelperService(t *testing.T, sys windowsSystem, name string) *mgr.Service {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := sys.InstallService(ServiceSpec{Name: name, DisplayName: name, Description: "test",
		ExePath: exe, Args: []string{"-test.run=^TestStartHelperService$", startHelperArg}}); err != nil {
		t.Fatalf("install: %v", err)
	}
	m, err := mgr.Connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Disconnect() })
	s, err := m.OpenService(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = s.Control(svc.Stop)
		_ = s.Delete()
		s.Close()
	})
	return s
}
