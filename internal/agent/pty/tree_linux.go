package pty

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// canWaitNoReap: waitExited leaves the process a zombie, so the session
// can be killed before its leader is reaped.
const canWaitNoReap = true

// waitExited blocks until process pid has exited, without reaping it.
func waitExited(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != syscall.EINTR {
			return
		}
	}
}

// killRounds bounds how often killSession looks again for processes
// forked while it killed.
const killRounds = 10

// killSession sends SIGKILL to every process of session sid and of
// process group sid (the session leader's own group). A member that
// ignores SIGHUP, or runs in a group of its own because a job-control
// shell put it there, is found through the session id in /proc. Members
// forked during the scan are caught by the next round; a process killed
// by SIGKILL cannot fork any more, so the rounds end quickly. A process
// that called setsid itself has left the session, by design.
//
// procops (the agent's EXEC_SHELL) kills its trees the same way and also
// follows parent links; its tree killer is unexported, and a terminal
// session's own session is the boundary that matters here.
func killSession(sid int) {
	if sid <= 1 {
		return
	}
	killed := map[int]bool{}
	for range killRounds {
		_ = syscall.Kill(-sid, syscall.SIGKILL)
		fresh := 0
		for _, pid := range sessionMembers(sid) {
			if !killed[pid] {
				killed[pid] = true
				fresh++
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if fresh == 0 {
			return
		}
	}
}

// sessionMembers returns the living processes whose session or process
// group is sid, never the agent itself.
func sessionMembers(sid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || pid <= 1 {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if st, pgrp, sess, ok := parseStat(b); ok && st != 'Z' && st != 'X' && (pgrp == sid || sess == sid) {
			out = append(out, pid)
		}
	}
	return out
}

// parseStat reads the state, process group and session of a
// /proc/PID/stat line. The command name may contain spaces and
// parentheses, so the fields are counted from the last ')'.
func parseStat(b []byte) (state byte, pgrp, session int, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return 0, 0, 0, false
	}
	pgrp, err1 := strconv.Atoi(string(f[2]))
	session, err2 := strconv.Atoi(string(f[3]))
	return f[0][0], pgrp, session, err1 == nil && err2 == nil
}
