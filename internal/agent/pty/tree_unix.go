//go:build !windows && !linux

package pty

import "syscall"

// canWaitNoReap is false: without waitid(WNOWAIT) the command is reaped
// first and its group killed after, a small window for pid reuse.
const canWaitNoReap = false

func waitExited(int) {}

// killSession sends SIGKILL to process group sid. Without /proc, members
// a job-control shell moved to other groups are not found.
func killSession(sid int) {
	if sid > 1 {
		_ = syscall.Kill(-sid, syscall.SIGKILL)
	}
}
