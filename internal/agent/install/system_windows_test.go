package install

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"hostgate/internal/eventually"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc/mgr"
)

// underWine reports whether the test runs under Wine, whose service
// manager accepts creating and deleting services without elevation.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// requireAdmin skips unless the test may change the system: elevated on
// Windows, or under Wine.
func requireAdmin(t *testing.T) {
	t.Helper()
	if underWine() {
		return
	}
	if !windows.GetCurrentProcessToken().IsElevated() {
		t.Skip("needs an elevated process (or Wine)")
	}
}

// serviceConfig reads the service's basic configuration directly (mgr's
// Config also queries levels Wine may not implement).
func serviceConfig(t *testing.T, name string) (startType uint32, binPath, display string) {
	t.Helper()
	m, err := mgr.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(name)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := uint32(8192)
	buf := make([]byte, n)
	p := (*windows.QUERY_SERVICE_CONFIG)(unsafe.Pointer(&buf[0]))
	if err := windows.QueryServiceConfig(s.Handle, p, n, &n); err != nil {
		t.Fatalf("QueryServiceConfig: %v", err)
	}
	return p.StartType, windows.UTF16PtrToString(p.BinaryPathName), windows.UTF16PtrToString(p.DisplayName)
}

func deleteService(name string) error {
	m, err := mgr.Connect()
	if err != nil {
		return err
	}
	defer m.Disconnect()
	s, err := m.OpenService(name)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.Delete()
}

func TestServiceCreateUpdateDelete(t *testing.T) {
	requireAdmin(t)
	sys := windowsSystem{}
	name := fmt.Sprintf("hostgate-test-%d", time.Now().UnixNano())
	t.Cleanup(func() { _ = deleteService(name) })

	if ok, err := sys.ServiceExists(name); err != nil || ok {
		t.Fatalf("exists before: %v %v", ok, err)
	}
	spec := ServiceSpec{Name: name, DisplayName: "hostgate test", Description: "hostgate install test",
		ExePath: `C:\Program Files\hostgate test\hostgate-agent.exe`,
		Args:    []string{"run", "--config", `C:\ProgramData\hostgate test\agent.json`}}
	if err := sys.InstallService(spec); err != nil {
		t.Fatalf("create: %v", err)
	}
	start, bin, display := serviceConfig(t, name)
	want := `"C:\Program Files\hostgate test\hostgate-agent.exe" run --config "C:\ProgramData\hostgate test\agent.json"`
	if start != windows.SERVICE_AUTO_START || bin != want || display != spec.DisplayName {
		t.Errorf("created: start %d bin %q display %q; want %d %q", start, bin, display, windows.SERVICE_AUTO_START, want)
	}
	checkRecovery(t, name)

	// A second run updates the existing service.
	spec.Args = []string{"run", "--config", `C:\other\agent.json`}
	spec.DisplayName = "hostgate test 2"
	if err := sys.InstallService(spec); err != nil {
		t.Fatalf("update: %v", err)
	}
	start, bin, display = serviceConfig(t, name)
	want = `"C:\Program Files\hostgate test\hostgate-agent.exe" run --config C:\other\agent.json`
	if start != windows.SERVICE_AUTO_START || bin != want || display != spec.DisplayName {
		t.Errorf("updated: start %d bin %q display %q; want %q", start, bin, display, want)
	}
	if ok, err := sys.ServiceExists(name); err != nil || !ok {
		t.Fatalf("exists after create: %v %v", ok, err)
	}

	if err := deleteService(name); err != nil {
		t.Fatalf("delete: %v", err)
	}
	eventually.True(t, 5*time.Second, "service gone after delete", func() bool {
		ok, err := sys.ServiceExists(name)
		if err != nil {
			t.Fatal(err)
		}
		return !ok
	})
}

func checkRecovery(t *testing.T, name string) {
	t.Helper()
	m, err := mgr.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(name)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	actions, err := s.RecoveryActions()
	if err != nil {
		if underWine() {
			t.Logf("recovery actions not readable under Wine: %v", err)
			return
		}
		t.Fatalf("recovery actions: %v", err)
	}
	if len(actions) != len(recoveryActions) {
		t.Fatalf("recovery actions %+v", actions)
	}
	for i, a := range actions {
		if a != recoveryActions[i] {
			t.Errorf("action %d: %+v, want %+v", i, a, recoveryActions[i])
		}
	}
	if p, err := s.ResetPeriod(); err != nil || p != recoveryResetPeriod {
		t.Errorf("reset period %d %v", p, err)
	}
}

func TestWriteSetupFileIsAdminOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, SetupFileName)
	if err := (windowsSystem{}).WriteSetupFile(path, []byte(`{"host_id":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != `{"host_id":"x"}` {
		t.Fatalf("read back %q %v", b, err)
	}
	if underWine() {
		// Wine accepts SetNamedSecurityInfo on files but does not keep the
		// DACL, so there is nothing to check.
		t.Log("ACL not checked under Wine")
		return
	}
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	s := sd.String()
	ctl, _, err := sd.Control()
	if err != nil {
		t.Fatal(err)
	}
	if ctl&windows.SE_DACL_PROTECTED == 0 {
		t.Errorf("DACL not protected: %s", s)
	}
	for _, want := range []string{"(A;;FA;;;SY)", "(A;;FA;;;BA)"} {
		if !strings.Contains(s, want) {
			t.Errorf("%s lacks %s", s, want)
		}
	}
	if n := strings.Count(s, "(A;"); n != 2 {
		t.Errorf("%d allow entries: %s", n, s)
	}
}

func TestCopyExecutableIsIdempotent(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "Program Files", "hostgate", "hostgate-agent.exe")
	sys := windowsSystem{}
	for i := 0; i < 2; i++ {
		if err := sys.CopyExecutable(dst); err != nil {
			t.Fatalf("copy %d: %v", i, err)
		}
	}
	self, _ := os.Executable()
	if same, err := sameContent(self, dst); err != nil || !same {
		t.Errorf("copy differs: %v", err)
	}
}

func TestCreateLogonTask(t *testing.T) {
	requireAdmin(t)
	name := fmt.Sprintf("hostgate-test-%d", time.Now().UnixNano())
	t.Cleanup(func() { _ = exec.Command(system32("schtasks.exe"), "/Delete", "/F", "/TN", name).Run() })
	err := (windowsSystem{}).CreateLogonTask(TaskSpec{Name: name, Description: "hostgate install test",
		ExePath: `C:\Program Files\hostgate\hostgate-agent.exe`, Args: []string{WorkerCommand, "--config", `C:\x\agent.json`}})
	if err != nil {
		t.Fatal(err)
	}
	if underWine() {
		return // schtasks is a stub: nothing to query
	}
	if out, err := exec.Command(system32("schtasks.exe"), "/Query", "/TN", name).CombinedOutput(); err != nil {
		t.Errorf("task not found: %v %s", err, out)
	}
}

func TestAddFirewallRuleUnderWine(t *testing.T) {
	if !underWine() {
		t.Skip("changes the firewall; only run under Wine, where netsh is a stub")
	}
	if err := (windowsSystem{}).AddFirewallRule(FirewallRule{Name: "hostgate-test", Port: 23456}); err != nil {
		t.Logf("netsh under Wine: %v", err)
	}
}

func TestNewSystemAndInstallPath(t *testing.T) {
	sys, err := NewSystem()
	if err != nil || sys == nil {
		t.Fatalf("NewSystem: %v %v", sys, err)
	}
	if p := DefaultInstallPath(); !strings.HasSuffix(strings.ToLower(p), `\hostgate\hostgate-agent.exe`) {
		t.Errorf("install path %q", p)
	}
	if errors.Is(err, ErrUnsupported) {
		t.Error("unsupported on Windows")
	}
}
