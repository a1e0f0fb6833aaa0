package main

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// elevated reports whether this process has administrator rights (UAC).
func elevated() bool { return windows.GetCurrentProcessToken().IsElevated() }

var procShellExecuteEx = windows.NewLazySystemDLL("shell32.dll").NewProc("ShellExecuteExW")

// shellExecuteInfo is SHELLEXECUTEINFOW.
type shellExecuteInfo struct {
	size        uint32
	mask        uint32
	hwnd        windows.Handle
	verb        *uint16
	file        *uint16
	parameters  *uint16
	directory   *uint16
	show        int32
	instApp     windows.Handle
	idList      uintptr
	class       *uint16
	keyClass    windows.Handle
	hotKey      uint32
	iconMonitor windows.Handle
	process     windows.Handle
}

const (
	seeMaskNoCloseProcess = 0x00000040
	seeMaskNoAsync        = 0x00000100
)

// relaunchElevated runs exe with args through the UAC prompt ("runas"),
// waits for it and returns its exit code. Declining the prompt is an
// error (ERROR_CANCELLED).
func relaunchElevated(exe string, args []string) (int, error) {
	verb, err := windows.UTF16PtrFromString("runas")
	if err != nil {
		return 0, err
	}
	file, err := windows.UTF16PtrFromString(exe)
	if err != nil {
		return 0, err
	}
	params, err := windows.UTF16PtrFromString(windows.ComposeCommandLine(args))
	if err != nil {
		return 0, err
	}
	info := shellExecuteInfo{
		mask: seeMaskNoCloseProcess | seeMaskNoAsync,
		verb: verb, file: file, parameters: params, show: windows.SW_SHOWNORMAL,
	}
	info.size = uint32(unsafe.Sizeof(info))
	if ok, _, err := procShellExecuteEx.Call(uintptr(unsafe.Pointer(&info))); ok == 0 {
		return 0, fmt.Errorf("elevate: %w", err)
	}
	if info.process == 0 {
		return 0, fmt.Errorf("elevate: no process handle")
	}
	defer windows.CloseHandle(info.process)
	if _, err := windows.WaitForSingleObject(info.process, windows.INFINITE); err != nil {
		return 0, fmt.Errorf("elevate: wait: %w", err)
	}
	var code uint32
	if err := windows.GetExitCodeProcess(info.process, &code); err != nil {
		return 0, fmt.Errorf("elevate: exit code: %w", err)
	}
	return int(code), nil
}
