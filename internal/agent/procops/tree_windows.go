package procops

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
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
	job, err := newKillOnCloseJob()
	if err != nil {
		return err
	}
	var assignErr error
	err = cmd.Process.WithHandle(func(h uintptr) {
		assignErr = windows.AssignProcessToJobObject(job, windows.Handle(h))
	})
	if err == nil {
		err = assignErr
	}
	if err == nil {
		err = resumeProcess(uint32(cmd.Process.Pid))
	}
	if err != nil {
		_ = windows.CloseHandle(job) // kills the process, which is in it or about to be killed
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
		_ = setJobLimits(t.job, 0)
		_ = windows.CloseHandle(t.job)
	}
}

// newKillOnCloseJob creates an unnamed job whose processes die when its
// last handle closes.
func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("CreateJobObject: %w", err)
	}
	if err := setJobLimits(job, windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE); err != nil {
		_ = windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// setJobLimits sets the basic limit flags of job.
func setJobLimits(job windows.Handle, flags uint32) error {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = flags
	_, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err != nil {
		return fmt.Errorf("SetInformationJobObject: %w", err)
	}
	return nil
}

// resumeProcess resumes the threads of a process created suspended (it
// has one). Windows has no documented call that resumes a process, so
// its threads are found in a Toolhelp snapshot.
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("CreateToolhelp32Snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("OpenThread: %w", err)
		}
		_, err = windows.ResumeThread(th)
		_ = windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("ResumeThread: %w", err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("Thread32Next: %w", err)
	}
	if resumed == 0 {
		return errors.New("the suspended process has no thread to resume")
	}
	return nil
}
