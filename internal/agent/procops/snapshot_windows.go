package procops

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// snapshot lists the processes from one Toolhelp snapshot, which gives
// every process's pid, parent and image name whatever the agent's rights;
// the full executable path is added where the process may be queried.
func snapshot() ([]procEntry, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, fmt.Errorf("CreateToolhelp32Snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	pe := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	var out []procEntry
	buf := make([]uint16, windows.MAX_LONG_PATH)
	for err = windows.Process32First(snap, &pe); err == nil; err = windows.Process32Next(snap, &pe) {
		out = append(out, procEntry{
			PID:  int(pe.ProcessID),
			PPID: int(pe.ParentProcessID),
			Name: windows.UTF16ToString(pe.ExeFile[:]),
			Exe:  imagePath(pe.ProcessID, buf),
		})
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return nil, fmt.Errorf("Process32Next: %w", err)
	}
	return out, nil
}

// imagePath is the full path of a process's executable, or "" when the
// process may not be queried (a protected one) or has ended. buf is
// scratch space the caller reuses.
func imagePath(pid uint32, buf []uint16) string {
	if pid == 0 {
		return ""
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(h)
	size := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(h, 0, &buf[0], &size); err != nil {
		return ""
	}
	return windows.UTF16ToString(buf[:size])
}

// pidAlive reports whether pid still runs (tests use it; the kill
// operation holds handles instead).
func pidAlive(pid int, _ uint64) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == uint32(windows.WAIT_TIMEOUT)
}
