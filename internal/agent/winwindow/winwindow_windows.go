package winwindow

import (
	"sync"

	"golang.org/x/sys/windows"
)

// enumState carries EnumWindows' results to its callback. A callback made
// with NewCallback is never freed and there may be only so many, so there
// is one, shared under a lock.
var enumState struct {
	mu    sync.Mutex
	pid   uint32
	found []windows.HWND
}

var enumCallback = sync.OnceValue(func() uintptr {
	return windows.NewCallback(func(w windows.HWND, _ uintptr) uintptr {
		var pid uint32
		if _, err := windows.GetWindowThreadProcessId(w, &pid); err == nil && pid == enumState.pid {
			enumState.found = append(enumState.found, w)
		}
		return 1 // go on
	})
})

// TopLevel lists the top-level windows of process pid in EnumWindows' (z-)
// order, hidden ones included (a Delphi program's application window is
// hidden, and closing it closes the program).
func TopLevel(pid uint32) []windows.HWND {
	enumState.mu.Lock()
	defer enumState.mu.Unlock()
	enumState.pid, enumState.found = pid, nil
	_ = windows.EnumWindows(enumCallback(), nil)
	found := enumState.found
	enumState.found = nil
	return found
}
