package procops

import (
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/windows"

	"hostgate/internal/agent/winjob"
)

// jobTree holds an EXEC_SHELL command on Windows in a job object. The
// command is created suspended, put in the job and only then resumed, so
// every process it starts is born in the job too (unless the job lets it
// break away, which this one does not). Killing the tree is terminating
// the job. The job is also set to kill its processes when its last handle
// closes, so a crashing agent leaves no command running; a command that
// ended normally has that limit lifted before the agent lets go, so what
// it left in the background keeps running, as on Linux.
type jobTree struct {
	mu   sync.Mutex
	job  windows.Handle
	done bool
}

func newProcessTree() processTree { return &jobTree{} }

// prepare creates the process suspended and without a console window: the
// agent has no console to share, and a console program started by the
// logon worker would otherwise flash a window on the user's desktop.
func (t *jobTree) prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED | windows.CREATE_NO_WINDOW
}

func (t *jobTree) adopt(cmd *exec.Cmd) error {
	var (
		job      windows.Handle
		adoptErr error
	)
	err := cmd.Process.WithHandle(func(h uintptr) {
		job, adoptErr = winjob.Adopt(windows.Handle(h), uint32(cmd.Process.Pid))
	})
	if err == nil {
		err = adoptErr
	}
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.job = job
	t.mu.Unlock()
	return nil
}

func (t *jobTree) kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done || t.job == 0 {
		return
	}
	_ = windows.TerminateJobObject(t.job, 1)
}

func (t *jobTree) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	t.done = true
	if t.job != 0 {
		_ = winjob.SetLimits(t.job, 0)
		_ = windows.CloseHandle(t.job)
	}
}
