package orchestrate

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"

	"hostgate/internal/agent/winwindow"
)

// windowsProcs finds processes in a Toolhelp snapshot and stops them with
// window messages.
type windowsProcs struct{}

func systemProcs() procs { return windowsProcs{} }

// startFlags: a console of its own and a process group of its own, as a
// program started from Explorer, so no console event meant for the agent
// reaches the family.
const startFlags = windows.CREATE_NEW_CONSOLE | windows.CREATE_NEW_PROCESS_GROUP

// start starts exe outside the agent's job object (CREATE_BREAKAWAY_FROM_JOB),
// so that the family outlives the agent; a job that forbids breaking away
// refuses with ERROR_ACCESS_DENIED and the process is then started inside
// it (docs/orchestration.md says what that means). No handle is inherited
// and nothing waits for the process.
func (windowsProcs) start(exe, dir string, args []string) (int, error) {
	pid, err := createProcess(exe, dir, args, startFlags|windows.CREATE_BREAKAWAY_FROM_JOB)
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		pid, err = createProcess(exe, dir, args, startFlags)
	}
	return pid, err
}

func createProcess(exe, dir string, args []string, flags uint32) (int, error) {
	app, err := windows.UTF16PtrFromString(exe)
	if err != nil {
		return 0, err
	}
	// CreateProcessW may write into the command line: it needs a buffer.
	cmdLine, err := windows.UTF16FromString(windows.ComposeCommandLine(append([]string{exe}, args...)))
	if err != nil {
		return 0, err
	}
	wd, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, err
	}
	si := windows.StartupInfo{}
	si.Cb = uint32(unsafe.Sizeof(si))
	var pi windows.ProcessInformation
	if err := windows.CreateProcess(app, &cmdLine[0], nil, nil, false, flags, nil, wd, &si, &pi); err != nil {
		return 0, err
	}
	_ = windows.CloseHandle(pi.Thread)
	_ = windows.CloseHandle(pi.Process)
	return int(pi.ProcessId), nil
}

// under lists the processes of one snapshot whose image path, read with
// QueryFullProcessImageName, is inside dir (compared ignoring case).
func (windowsProcs) under(dir string) ([]process, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, fmt.Errorf("CreateToolhelp32Snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	prefix := strings.ToLower(filepath.Clean(dir) + `\`)
	pe := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	var out []process
	for err = windows.Process32First(snap, &pe); err == nil; err = windows.Process32Next(snap, &pe) {
		if pe.ProcessID <= 4 {
			continue
		}
		p, ok := inspect(pe.ProcessID)
		if ok && strings.HasPrefix(strings.ToLower(p.Exe), prefix) {
			out = append(out, p)
		}
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return nil, fmt.Errorf("Process32Next: %w", err)
	}
	return out, nil
}

// inspect reads a running process's image path and creation time.
func inspect(pid uint32) (process, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.SYNCHRONIZE, false, pid)
	if err != nil {
		return process{}, false
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	size := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(h, 0, &buf[0], &size); err != nil {
		return process{}, false
	}
	started, ok := running(h)
	if !ok {
		return process{}, false
	}
	return process{PID: int(pid), Exe: windows.UTF16ToString(buf[:size]), Started: started}, true
}

// running reports whether the process of h still runs, with its creation
// time.
func running(h windows.Handle) (uint64, bool) {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, false
	}
	ev, err := windows.WaitForSingleObject(h, 0)
	if err != nil || ev != uint32(windows.WAIT_TIMEOUT) {
		return 0, false
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime), true
}

// open opens p with access while its pid still names p (same creation
// time), or fails.
func open(p process, access uint32) (windows.Handle, error) {
	h, err := windows.OpenProcess(access|windows.PROCESS_QUERY_LIMITED_INFORMATION|windows.SYNCHRONIZE, false, uint32(p.PID))
	if err != nil {
		return 0, err
	}
	if started, ok := running(h); !ok || started != p.Started {
		_ = windows.CloseHandle(h)
		return 0, errGone
	}
	return h, nil
}

// errGone: the process ended before the message.
var errGone = errors.New("the process has ended")

func (windowsProcs) alive(p process) bool {
	h, err := open(p, 0)
	if err != nil {
		return false
	}
	_ = windows.CloseHandle(h)
	return true
}

func (windowsProcs) kill(p process) error {
	h, err := open(p, windows.PROCESS_TERMINATE)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.TerminateProcess(h, 1)
}

var (
	user32                  = windows.NewLazySystemDLL("user32.dll")
	procPostMessageW        = user32.NewProc("PostMessageW")
	procSendMessageTimeoutW = user32.NewProc("SendMessageTimeoutW")
	procGetWindow           = user32.NewProc("GetWindow")
)

const (
	wmClose           = 0x0010
	wmCopyData        = 0x004A
	gwOwner           = 4
	smtoNormal        = 0x0000
	copyDataTimeoutMs = 5000
	// quitMessage is the family's quit command, sent as dwData 2000<<16.
	quitMessage = 2000 << 16
)

// copyDataStruct is COPYDATASTRUCT.
type copyDataStruct struct {
	dwData uintptr
	cbData uint32
	lpData uintptr
}

// quit sends WM_COPYDATA with dwData 2000<<16 and no payload to the
// process's main window. WM_COPYDATA must be sent, not posted; a window
// that does not answer makes the send give up after 5 s instead of
// hanging the agent. The send does not abort early for a window the system
// calls hung (SMTO_ABORTIFHUNG): a game server busy saving for 5 s is
// "hung" by that measure, and Wine says so of idle windows too, which
// would skip the one graceful stage a server saves its state in.
func (windowsProcs) quit(p process) error {
	w, ok := mainWindow(uint32(p.PID))
	if !ok {
		return fmt.Errorf("pid %d has no top-level window", p.PID)
	}
	cds := copyDataStruct{dwData: quitMessage}
	var result uintptr
	r, _, err := procSendMessageTimeoutW.Call(uintptr(w), wmCopyData, 0, uintptr(unsafe.Pointer(&cds)),
		smtoNormal, copyDataTimeoutMs, uintptr(unsafe.Pointer(&result)))
	if r == 0 {
		return fmt.Errorf("WM_COPYDATA to pid %d: %w", p.PID, err)
	}
	return nil
}

// close posts WM_CLOSE to each top-level window of the process, as
// closing its windows by hand would, without waiting.
func (windowsProcs) close(p process) error {
	sent := false
	for _, w := range winwindow.TopLevel(uint32(p.PID)) {
		if r, _, _ := procPostMessageW.Call(uintptr(w), wmClose, 0, 0); r != 0 {
			sent = true
		}
	}
	if !sent {
		return fmt.Errorf("pid %d has no top-level window to close", p.PID)
	}
	return nil
}

// mainWindow is the process's main window: its first visible top-level
// window without an owner; else its first without an owner (a Delphi
// program's hidden application window); else its first.
func mainWindow(pid uint32) (windows.HWND, bool) {
	ws := winwindow.TopLevel(pid)
	if len(ws) == 0 {
		return 0, false
	}
	unowned := func(w windows.HWND) bool {
		r, _, _ := procGetWindow.Call(uintptr(w), gwOwner)
		return r == 0
	}
	for _, w := range ws {
		if unowned(w) && windows.IsWindowVisible(w) {
			return w, true
		}
	}
	for _, w := range ws {
		if unowned(w) {
			return w, true
		}
	}
	return ws[0], true
}
