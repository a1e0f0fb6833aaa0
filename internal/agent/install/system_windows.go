package install

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/mgr"

	"hostgate/internal/agent/watchdog"
)

// NewSystem returns the Windows implementation.
func NewSystem() (System, error) { return windowsSystem{}, nil }

// DefaultInstallPath is %ProgramFiles%\hostgate\hostgate-agent.exe.
func DefaultInstallPath() string {
	pf := os.Getenv("ProgramFiles")
	if pf == "" {
		pf = `C:\Program Files`
	}
	return filepath.Join(pf, "hostgate", "hostgate-agent.exe")
}

// Recovery actions of the service: restart after 5 s, 30 s, then 60 s;
// the failure count resets after a day without failure.
var (
	recoveryActions = []mgr.RecoveryAction{
		{Type: mgr.ServiceRestart, Delay: 5 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 30 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 60 * time.Second},
	}
	recoveryResetPeriod = uint32((24 * time.Hour).Seconds())
)

// adminOnlySDDL grants full control to SYSTEM and Administrators only,
// without inheritance from the parent directory.
const adminOnlySDDL = "D:P(A;;FA;;;SY)(A;;FA;;;BA)"

type windowsSystem struct{}

func (windowsSystem) CopyExecutable(dst string) error {
	src, err := os.Executable()
	if err != nil {
		return fmt.Errorf("locate running executable: %w", err)
	}
	return copyFile(src, dst)
}

func (windowsSystem) WriteSetupFile(path string, data []byte) error {
	return writeFileAtomic(path, data, restrictFile)
}

// restrictFile gives path the admin-only ACL, before it has any content.
func restrictFile(path string) error {
	sd, err := windows.SecurityDescriptorFromString(adminOnlySDDL)
	if err != nil {
		return fmt.Errorf("security descriptor: %w", err)
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return fmt.Errorf("security descriptor: %w", err)
	}
	info := windows.SECURITY_INFORMATION(windows.DACL_SECURITY_INFORMATION | windows.PROTECTED_DACL_SECURITY_INFORMATION)
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, info, nil, nil, dacl, nil); err != nil {
		return fmt.Errorf("set ACL: %w", err)
	}
	return nil
}

func (windowsSystem) InstallService(spec ServiceSpec) error {
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("connect to service manager: %w", err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(spec.Name)
	switch {
	case errors.Is(err, windows.ERROR_SERVICE_DOES_NOT_EXIST):
		s, err = m.CreateService(spec.Name, spec.ExePath, mgr.Config{
			ServiceType:  windows.SERVICE_WIN32_OWN_PROCESS,
			StartType:    mgr.StartAutomatic,
			ErrorControl: mgr.ErrorNormal,
			DisplayName:  spec.DisplayName,
			Description:  spec.Description,
		}, spec.Args...)
		if err != nil {
			return fmt.Errorf("create: %w", err)
		}
	case err != nil:
		return fmt.Errorf("open: %w", err)
	default:
		if err := updateService(s.Handle, spec); err != nil {
			s.Close()
			return fmt.Errorf("update: %w", err)
		}
	}
	defer s.Close()
	if err := s.SetRecoveryActions(recoveryActions, recoveryResetPeriod); err != nil {
		return fmt.Errorf("set recovery actions: %w", err)
	}
	// The agent reports a service-specific exit code when it fails, which
	// is not a crash: apply the recovery actions to that too. A service
	// manager without this setting (ERROR_INVALID_LEVEL, e.g. Wine) still
	// restarts after crashes, which is better than failing the install.
	if err := s.SetRecoveryActionsOnNonCrashFailures(true); err != nil && !errors.Is(err, windows.ERROR_INVALID_LEVEL) {
		return fmt.Errorf("set recovery on non-crash failures: %w", err)
	}
	return nil
}

// updateService sets command line, start type and names of an existing
// service, leaving its account and dependencies as they are.
func updateService(h windows.Handle, spec ServiceSpec) error {
	binPath, err := windows.UTF16PtrFromString(commandLine(append([]string{spec.ExePath}, spec.Args...)))
	if err != nil {
		return err
	}
	display, err := windows.UTF16PtrFromString(spec.DisplayName)
	if err != nil {
		return err
	}
	if err := windows.ChangeServiceConfig(h, windows.SERVICE_WIN32_OWN_PROCESS, windows.SERVICE_AUTO_START,
		windows.SERVICE_NO_CHANGE, binPath, nil, nil, nil, nil, nil, display); err != nil {
		return err
	}
	desc, err := windows.UTF16PtrFromString(spec.Description)
	if err != nil {
		return err
	}
	d := windows.SERVICE_DESCRIPTION{Description: desc}
	return windows.ChangeServiceConfig2(h, windows.SERVICE_CONFIG_DESCRIPTION, (*byte)(unsafe.Pointer(&d)))
}

// StartService starts the service through the service control manager
// (the watchdog's, which takes a running service as started).
func (windowsSystem) StartService(name string) error {
	scm, err := watchdog.NewServices()
	if err != nil {
		return err
	}
	return scm.Start(name)
}

// stopTimeout bounds the wait for the service to stop (the agent stops
// within its own 15 s hint).
const stopTimeout = 60 * time.Second

// StopService asks the service to stop and waits until it has.
func (windowsSystem) StopService(name string) error {
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("connect to service manager: %w", err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(name)
	if errors.Is(err, windows.ERROR_SERVICE_DOES_NOT_EXIST) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open service %s: %w", name, err)
	}
	defer s.Close()
	st, err := s.Query()
	if err != nil {
		return fmt.Errorf("query service %s: %w", name, err)
	}
	if st.State != svc.Stopped && st.State != svc.StopPending {
		if _, err := s.Control(svc.Stop); err != nil && !errors.Is(err, windows.ERROR_SERVICE_NOT_ACTIVE) {
			return fmt.Errorf("stop service %s: %w", name, err)
		}
	}
	for deadline := time.Now().Add(stopTimeout); ; time.Sleep(200 * time.Millisecond) {
		st, err := s.Query()
		if err != nil {
			return fmt.Errorf("query service %s: %w", name, err)
		}
		if st.State == svc.Stopped {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("service %s has not stopped within %v", name, stopTimeout)
		}
	}
}

func (windowsSystem) ServiceExists(name string) (bool, error) {
	m, err := mgr.Connect()
	if err != nil {
		return false, fmt.Errorf("connect to service manager: %w", err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(name)
	if errors.Is(err, windows.ERROR_SERVICE_DOES_NOT_EXIST) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.Close()
	return true, nil
}

func (windowsSystem) CreateLogonTask(spec TaskSpec) error {
	dir, err := os.MkdirTemp("", "hostgate-task-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	xmlPath := filepath.Join(dir, "task.xml")
	if err := os.WriteFile(xmlPath, taskXML(spec), 0o600); err != nil {
		return err
	}
	out, err := exec.Command(system32("schtasks.exe"), schtasksArgs(spec.Name, xmlPath)...).CombinedOutput()
	if err != nil {
		return toolError("schtasks", err, out)
	}
	return nil
}

func (windowsSystem) AddFirewallRule(rule FirewallRule) error {
	netsh := system32("netsh.exe")
	// Fails harmlessly when there is no such rule yet.
	_ = exec.Command(netsh, firewallDeleteArgs(rule)...).Run()
	out, err := exec.Command(netsh, firewallArgs(rule)...).CombinedOutput()
	if err != nil {
		return toolError("netsh", err, out)
	}
	return nil
}

// system32 is the full path of a system tool, so PATH cannot substitute it.
func system32(exe string) string {
	dir, err := windows.GetSystemDirectory()
	if err != nil || dir == "" {
		dir = `C:\Windows\System32`
	}
	return filepath.Join(dir, exe)
}
