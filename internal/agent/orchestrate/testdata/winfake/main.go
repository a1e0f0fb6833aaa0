//go:build windows

// Command winfake stands in for a Windows game server in the orchestrate
// tests (orchestrate_windows_test.go, run under Wine with a virtual
// display). Its behaviour comes from fake.json beside its executable:
// {"mode": "quit" | "close" | "stubborn" | "controller", "log": path}.
// Except the controller, it opens a visible top-level window with a
// message loop, as a game server's main form, and appends one JSON line
// per event to the log: "ready" once the window exists (with pid, working
// directory and arguments), each WM_COPYDATA ("copydata", with its
// dwData) and WM_CLOSE ("close") it gets, and "exit".
//
//   - quit exits on WM_COPYDATA with dwData 2000<<16 (the quit message);
//   - close ignores the quit message and exits on WM_CLOSE (the window
//     close);
//   - stubborn ignores both and only ends by TerminateProcess;
//   - controller has no window and idles until it is terminated.
//
// Build it as a GUI program: go build -ldflags=-H=windowsgui.
package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

type config struct {
	Mode string `json:"mode"`
	Log  string `json:"log"`
}

// Event is one line of the log.
type Event struct {
	Event  string   `json:"event"` // ready, copydata, close, exit
	Exe    string   `json:"exe"`
	PID    int      `json:"pid"`
	Cwd    string   `json:"cwd,omitempty"`
	Args   []string `json:"args,omitempty"`
	Mode   string   `json:"mode,omitempty"`
	HWND   uintptr  `json:"hwnd,omitempty"`
	DwData uintptr  `json:"dw_data,omitempty"`
}

var (
	cfg config
	exe string
)

var (
	user32               = windows.NewLazySystemDLL("user32.dll")
	procRegisterClassExW = user32.NewProc("RegisterClassExW")
	procCreateWindowExW  = user32.NewProc("CreateWindowExW")
	procDefWindowProcW   = user32.NewProc("DefWindowProcW")
	procGetMessageW      = user32.NewProc("GetMessageW")
	procTranslateMessage = user32.NewProc("TranslateMessage")
	procDispatchMessageW = user32.NewProc("DispatchMessageW")
	procPostQuitMessage  = user32.NewProc("PostQuitMessage")
	procDestroyWindow    = user32.NewProc("DestroyWindow")
)

const (
	wmDestroy  = 0x0002
	wmClose    = 0x0010
	wmCopyData = 0x004A

	wsOverlappedWindow = 0x00CF0000
	wsVisible          = 0x10000000
	cwUseDefault       = 0x80000000

	// quitMessage is the family's quit command (dwData of WM_COPYDATA).
	quitMessage = 2000 << 16
)

// wndClassEx is WNDCLASSEXW.
type wndClassEx struct {
	size       uint32
	style      uint32
	wndProc    uintptr
	clsExtra   int32
	wndExtra   int32
	instance   windows.Handle
	icon       windows.Handle
	cursor     windows.Handle
	background windows.Handle
	menuName   *uint16
	className  *uint16
	iconSm     windows.Handle
}

// msg is MSG.
type msg struct {
	hwnd    windows.HWND
	message uint32
	wParam  uintptr
	lParam  uintptr
	time    uint32
	pt      struct{ x, y int32 }
	private uint32
}

// copyDataStruct is COPYDATASTRUCT.
type copyDataStruct struct {
	dwData uintptr
	cbData uint32
	lpData uintptr
}

func main() {
	exe, _ = os.Executable()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(exe), "fake.json"))
	if err != nil || json.Unmarshal(b, &cfg) != nil {
		os.Exit(3)
	}
	if cfg.Mode == "controller" {
		cwd, _ := os.Getwd()
		logEvent(Event{Event: "ready", Cwd: cwd, Args: os.Args[1:], Mode: cfg.Mode})
		for {
			time.Sleep(time.Hour)
		}
	}
	// The window and its message loop belong to one thread.
	runtime.LockOSThread()
	hwnd, err := createWindow()
	if err != nil {
		logEvent(Event{Event: "error: " + err.Error()})
		os.Exit(4)
	}
	cwd, _ := os.Getwd()
	logEvent(Event{Event: "ready", Cwd: cwd, Args: os.Args[1:], Mode: cfg.Mode, HWND: uintptr(hwnd)})
	var m msg
	for {
		r, _, _ := procGetMessageW.Call(uintptr(unsafe.Pointer(&m)), 0, 0, 0)
		if int32(r) <= 0 { // WM_QUIT, or an error
			break
		}
		procTranslateMessage.Call(uintptr(unsafe.Pointer(&m)))
		procDispatchMessageW.Call(uintptr(unsafe.Pointer(&m)))
	}
	logEvent(Event{Event: "exit", Args: os.Args[1:]})
	os.Exit(0)
}

func createWindow() (windows.HWND, error) {
	var inst windows.Handle
	if err := windows.GetModuleHandleEx(0, nil, &inst); err != nil {
		return 0, err
	}
	class, _ := windows.UTF16PtrFromString("HostgateWinFake")
	title, _ := windows.UTF16PtrFromString(filepath.Base(exe) + " " + cfg.Mode)
	wc := wndClassEx{wndProc: windows.NewCallback(wndProc), instance: inst, className: class}
	wc.size = uint32(unsafe.Sizeof(wc))
	if r, _, err := procRegisterClassExW.Call(uintptr(unsafe.Pointer(&wc))); r == 0 {
		return 0, err
	}
	r, _, err := procCreateWindowExW.Call(0, uintptr(unsafe.Pointer(class)), uintptr(unsafe.Pointer(title)),
		wsOverlappedWindow|wsVisible, cwUseDefault, cwUseDefault, 320, 200, 0, 0, uintptr(inst), 0)
	if r == 0 {
		return 0, err
	}
	return windows.HWND(r), nil
}

// wndProc handles the two messages of a shutdown. Exiting happens after
// the message loop, never inside the handler: WM_COPYDATA is sent, and
// the sender must get its answer.
func wndProc(hwnd windows.HWND, message uint32, wParam uintptr, lParam unsafe.Pointer) uintptr {
	switch message {
	case wmCopyData:
		cds := (*copyDataStruct)(lParam)
		logEvent(Event{Event: "copydata", DwData: cds.dwData})
		if cfg.Mode == "quit" && cds.dwData == quitMessage {
			procPostQuitMessage.Call(0)
			return 1
		}
		return 0
	case wmClose:
		logEvent(Event{Event: "close"})
		if cfg.Mode == "stubborn" {
			return 0 // ignored
		}
		procDestroyWindow.Call(uintptr(hwnd))
		return 0
	case wmDestroy:
		procPostQuitMessage.Call(0)
		return 0
	}
	r, _, _ := procDefWindowProcW.Call(uintptr(hwnd), uintptr(message), wParam, uintptr(lParam))
	return r
}

func logEvent(e Event) {
	e.Exe, e.PID = exe, os.Getpid()
	b, _ := json.Marshal(e)
	f, err := os.OpenFile(cfg.Log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	_, _ = f.Write(append(b, '\n'))
	_ = f.Close()
}
