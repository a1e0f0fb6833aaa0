package procops

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/windows"
)

// detachFlags start a program the way a file manager would: with a
// console of its own (a console program gets a window in the user's
// session and no handle of the agent's) and in its own process group, so
// a console control event meant for the agent never reaches it.
const detachFlags = windows.CREATE_NEW_CONSOLE | windows.CREATE_NEW_PROCESS_GROUP

// startDetached starts p and returns its pid. It first asks to break away
// from the agent's job object, so that a job closing with the agent (a
// scheduled task's, say) cannot take the program with it; a job that
// forbids breaking away refuses that with ERROR_ACCESS_DENIED, and the
// program is then started inside it. Unlike os/exec, the program inherits
// no handle at all and gets no redirected standard handles, so a console
// program writes to its own console.
func startDetached(p program) (int, error) {
	pid, err := createProcess(p, detachFlags|windows.CREATE_BREAKAWAY_FROM_JOB)
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		pid, err = createProcess(p, detachFlags)
	}
	return pid, err
}

// createProcess calls CreateProcessW for p with flags and closes the
// handles it returns: Windows keeps no zombie, so nothing waits for the
// program.
func createProcess(p program, flags uint32) (int, error) {
	app, err := windows.UTF16PtrFromString(p.path)
	if err != nil {
		return 0, err
	}
	// CreateProcessW may write into the command line: it needs a buffer.
	cmdLine, err := windows.UTF16FromString(p.cmdLine())
	if err != nil {
		return 0, err
	}
	var dir *uint16
	if wd := p.workDir(); wd != "" {
		if dir, err = windows.UTF16PtrFromString(wd); err != nil {
			return 0, err
		}
	}
	si := windows.StartupInfo{}
	si.Cb = uint32(unsafe.Sizeof(si))
	var pi windows.ProcessInformation
	err = windows.CreateProcess(app, &cmdLine[0], nil, nil, false, flags, nil, dir, &si, &pi)
	if err != nil {
		return 0, err
	}
	_ = windows.CloseHandle(pi.Thread)
	_ = windows.CloseHandle(pi.Process)
	return int(pi.ProcessId), nil
}
