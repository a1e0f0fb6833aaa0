package orchestrate

import (
	"errors"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"

	"hostgate/internal/agentproto"
)

// process is one running process found by its executable.
type process struct {
	PID int
	// Exe is the executable's full path as the system reports it.
	Exe string
	// Started orders processes by their start and, with the pid, tells a
	// process from a later one with the same pid: start time in clock
	// ticks after boot on Linux, creation time (FILETIME) on Windows.
	Started uint64
}

// procs is what the orchestration needs from the operating system
// (procs_linux.go, procs_windows.go). Every method is safe to call for a
// process that has ended.
type procs interface {
	// start starts exe with args in dir, detached from the agent: in a
	// session (Linux) or console and process group (Windows) of its own,
	// outside the agent's job, so it outlives the agent. It returns the pid.
	start(exe, dir string, args []string) (int, error)
	// under lists the running processes whose executable is inside dir.
	under(dir string) ([]process, error)
	// alive reports whether p still runs.
	alive(p process) bool
	// quit sends the quit message: SIGTERM; WM_COPYDATA with dwData
	// 2000<<16 to the process's main window.
	quit(p process) error
	// close sends the window close: SIGHUP; WM_CLOSE to its windows.
	close(p process) error
	// kill terminates p: SIGKILL; TerminateProcess.
	kill(p process) error
}

// samePath compares executable paths as the system does: ignoring case
// on Windows.
func samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// systemError turns a failure of the system into an *agentproto.Error.
func systemError(what string, err error) error {
	var ae *agentproto.Error
	if errors.As(err, &ae) {
		return ae
	}
	if errors.Is(err, fs.ErrPermission) {
		return fail(CodePermissionDenied, "%s: %v", what, err)
	}
	return fail(agentproto.CodeFailed, "%s: %v", what, err)
}
