package procops

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procStat is what the agent reads from /proc/<pid>/stat.
type procStat struct {
	PID     int
	Comm    string // the kernel's name: at most 15 bytes
	State   byte   // R, S, D, Z (zombie), X (dead), ...
	PPID    int
	PGRP    int
	Session int
	// StartTicks is when the process started, in clock ticks after boot:
	// with the pid it names one process even after the pid is reused.
	StartTicks uint64
}

// commLen is the longest comm the kernel keeps (TASK_COMM_LEN - 1).
const commLen = 15

var errBadStat = errors.New("malformed /proc stat line")

// parseStat parses the content of /proc/<pid>/stat. The comm field is in
// parentheses and may itself hold spaces and parentheses, so the fields
// after it are found from the last ')'.
func parseStat(b []byte) (procStat, error) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return procStat{}, errBadStat
	}
	var st procStat
	var err error
	if st.PID, err = strconv.Atoi(string(bytes.TrimSpace(b[:open]))); err != nil {
		return procStat{}, errBadStat
	}
	st.Comm = string(b[open+1 : end])
	f := strings.Fields(string(b[end+1:]))
	// state(3) ppid(4) pgrp(5) session(6) ... starttime(22), counted from
	// 1 over the whole line; f[0] is field 3.
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, errBadStat
	}
	st.State = f[0][0]
	ints := []*int{&st.PPID, &st.PGRP, &st.Session}
	for i, p := range ints {
		if *p, err = strconv.Atoi(f[1+i]); err != nil {
			return procStat{}, errBadStat
		}
	}
	if st.StartTicks, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return procStat{}, errBadStat
	}
	return st, nil
}

// procDir is the procfs mount (a variable for tests).
var procDir = "/proc"

// readStat reads the stat of pid; an error usually means it has gone.
func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join(procDir, strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b)
}

// scanProcs reads the stat of every process. Processes that end while
// it reads are left out.
func scanProcs() ([]procStat, error) {
	ents, err := os.ReadDir(procDir)
	if err != nil {
		return nil, err
	}
	out := make([]procStat, 0, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		if st, err := readStat(pid); err == nil {
			out = append(out, st)
		}
	}
	return out, nil
}

// isDead reports whether a state is that of a process that has ended
// but not been reaped yet.
func isDead(state byte) bool { return state == 'Z' || state == 'X' }

// pidAlive reports whether the process pid that started at startTicks
// still runs: a pid now used by another process does not count.
func pidAlive(pid int, startTicks uint64) bool {
	st, err := readStat(pid)
	return err == nil && st.StartTicks == startTicks && !isDead(st.State)
}

// snapshot lists the processes with their names and executables.
func snapshot() ([]procEntry, error) {
	stats, err := scanProcs()
	if err != nil {
		return nil, err
	}
	out := make([]procEntry, 0, len(stats))
	for _, st := range stats {
		exe, _ := os.Readlink(filepath.Join(procDir, strconv.Itoa(st.PID), "exe"))
		out = append(out, procEntry{
			PID:   st.PID,
			PPID:  st.PPID,
			Name:  procName(st),
			Exe:   exe,
			Dead:  isDead(st.State),
			Ident: st.StartTicks,
		})
	}
	return out, nil
}

// procName is the process name: the comm, or, when the kernel cut it at
// 15 bytes, the base name of argv[0] that it is the start of (a long
// executable name is common for game and application servers).
func procName(st procStat) string {
	if len(st.Comm) < commLen {
		return st.Comm
	}
	b, err := os.ReadFile(filepath.Join(procDir, strconv.Itoa(st.PID), "cmdline"))
	if err != nil {
		return st.Comm
	}
	arg0, _, _ := bytes.Cut(b, []byte{0})
	if base := filepath.Base(string(arg0)); strings.HasPrefix(base, st.Comm) {
		return base
	}
	return st.Comm
}
