package procops

import (
	"errors"

	"golang.org/x/sys/windows"

	"hostgate/internal/agent/winwindow"
)

// winVictim is a process to kill, held by a handle from the moment it was
// matched: the handle keeps its pid from being reused, so the wait and
// the hard kill cannot reach another process.
type winVictim struct {
	p uint32
	h windows.Handle // 0 when not even SYNCHRONIZE was granted
}

// Access the kill needs; a process that refuses PROCESS_TERMINATE (one of
// another user, to an agent without the rights) is still watched and
// asked to close, and the hard kill then reports the refusal.
const (
	killAccess  = windows.PROCESS_TERMINATE | windows.SYNCHRONIZE | windows.PROCESS_QUERY_LIMITED_INFORMATION
	watchAccess = windows.SYNCHRONIZE | windows.PROCESS_QUERY_LIMITED_INFORMATION
)

func openVictim(e procEntry) (victim, bool) {
	if e.PID <= 4 { // the idle process and System
		return nil, false
	}
	h, err := windows.OpenProcess(killAccess, false, uint32(e.PID))
	if err != nil {
		h, err = windows.OpenProcess(watchAccess, false, uint32(e.PID))
	}
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) { // ended since the snapshot
		return nil, false
	}
	if err != nil {
		h = 0
	}
	return &winVictim{p: uint32(e.PID), h: h}, true
}

func (v *winVictim) pid() int { return int(v.p) }

func (v *winVictim) exited() bool {
	if v.h == 0 {
		return false
	}
	ev, err := windows.WaitForSingleObject(v.h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}

// askToExit posts WM_CLOSE to each top-level window of the process, as
// closing its windows by hand would. A process without a window (a
// console or background program) gets nothing and is killed after the
// grace.
func (v *winVictim) askToExit() bool {
	if v.exited() {
		return false
	}
	sent := false
	for _, w := range winwindow.TopLevel(v.p) {
		if postClose(w) == nil {
			sent = true
		}
	}
	return sent
}

func (v *winVictim) forceKill() error {
	if v.h == 0 {
		return windows.ERROR_ACCESS_DENIED
	}
	return windows.TerminateProcess(v.h, 1)
}

func (v *winVictim) close() {
	if v.h != 0 {
		_ = windows.CloseHandle(v.h)
		v.h = 0
	}
}

var (
	user32           = windows.NewLazySystemDLL("user32.dll")
	procPostMessageW = user32.NewProc("PostMessageW")
)

const wmClose = 0x0010

// postClose posts WM_CLOSE to w without waiting: a hung window cannot
// hang the agent.
func postClose(w windows.HWND) error {
	r, _, err := procPostMessageW.Call(uintptr(w), wmClose, 0, 0)
	if r == 0 {
		return err
	}
	return nil
}
