package main

import (
	"fmt"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// startAgain starts exe with argv's arguments as a new, detached process
// and returns: Windows has no exec, and this process then exits. The new
// one has no console (its log output is discarded) and inherits no
// handles but NUL for its standard streams.
func startAgain(exe string, argv []string) error {
	return startDetached(exe, argv[1:]...)
}

// startDetached starts exe with args, detached from this process's
// console and process group, and does not wait for it.
func startDetached(exe string, args ...string) error {
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP,
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", exe, err)
	}
	return cmd.Process.Release()
}
