//go:build !linux && !windows

package procops

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/shirou/gopsutil/v4/process"
)

// The agent ships for Windows and Linux; on other Unix systems (a
// developer's machine) the process operations work with what is portable:
// the process table through gopsutil, liveness through kill(pid, 0), and
// a shell tree that is its process group only.

// snapshot lists the processes with their names and executables.
func snapshot() ([]procEntry, error) {
	ps, err := process.Processes()
	if err != nil {
		return nil, err
	}
	out := make([]procEntry, 0, len(ps))
	for _, p := range ps {
		e := procEntry{PID: int(p.Pid)}
		if ppid, err := p.Ppid(); err == nil {
			e.PPID = int(ppid)
		}
		e.Name, _ = p.Name()
		e.Exe, _ = p.Exe()
		out = append(out, e)
	}
	return out, nil
}

// pidAlive reports whether pid runs; ident is not known here.
func pidAlive(pid int, _ uint64) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// groupTree kills the process group of an EXEC_SHELL command.
type groupTree struct {
	mu   sync.Mutex
	pid  int
	done bool
}

func newProcessTree() processTree { return &groupTree{} }

func (t *groupTree) prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

func (t *groupTree) adopt(cmd *exec.Cmd) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pid = cmd.Process.Pid
	return nil
}

func (t *groupTree) kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.done && t.pid > 1 && t.pid != os.Getpid() {
		_ = syscall.Kill(-t.pid, syscall.SIGKILL)
	}
}

func (t *groupTree) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done = true
}
