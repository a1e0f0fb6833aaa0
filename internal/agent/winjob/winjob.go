//go:build windows

// Package winjob holds a suspended Windows process and everything it starts
// in a job object: Adopt puts the process in a new job that kills its
// processes when its last handle closes, and only then resumes it, so every
// child is born in the job. procops (EXEC_SHELL) and pty (ConPTY sessions)
// use it to end whole process trees.
package winjob

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Adopt puts the suspended process proc (id pid) in a new kill-on-close
// job and resumes it. On error the job is closed, which kills the process
// if it got in.
func Adopt(proc windows.Handle, pid uint32) (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("CreateJobObject: %w", err)
	}
	err = SetLimits(job, windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE)
	if err == nil {
		err = windows.AssignProcessToJobObject(job, proc)
	}
	if err == nil {
		err = Resume(pid)
	}
	if err != nil {
		_ = windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// SetLimits sets the basic limit flags of job; 0 lifts kill-on-close, so
// what the job still holds survives its handle.
func SetLimits(job windows.Handle, flags uint32) error {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = flags
	_, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err != nil {
		return fmt.Errorf("SetInformationJobObject: %w", err)
	}
	return nil
}

// Resume resumes the threads of a process created suspended. Windows has
// no documented call that resumes a process, and the creator's thread
// handle is not always at hand, so the threads are found in a Toolhelp
// snapshot.
func Resume(pid uint32) error {
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
