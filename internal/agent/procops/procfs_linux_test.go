package procops

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// statLine builds a /proc stat line with the given fields.
func statLine(pid int, comm string, state byte, ppid, pgrp, sid int, start uint64) string {
	rest := make([]string, 0, 49)
	rest = append(rest, string(state), strconv.Itoa(ppid), strconv.Itoa(pgrp), strconv.Itoa(sid))
	for i := 7; i < 22; i++ {
		rest = append(rest, "0")
	}
	rest = append(rest, strconv.FormatUint(start, 10))
	for i := 23; i <= 52; i++ {
		rest = append(rest, "0")
	}
	return fmt.Sprintf("%d (%s) %s\n", pid, comm, strings.Join(rest, " "))
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		line string
		want procStat
	}{
		{statLine(42, "sleep", 'S', 1, 42, 40, 12345), procStat{42, "sleep", 'S', 1, 42, 40, 12345}},
		{statLine(7, "a) (b", 'Z', 3, 4, 5, 6), procStat{7, "a) (b", 'Z', 3, 4, 5, 6}},
		{statLine(8, "with space", 'R', 1, 1, 1, 9), procStat{8, "with space", 'R', 1, 1, 1, 9}},
		{statLine(9, "", 'S', 1, 1, 1, 1), procStat{9, "", 'S', 1, 1, 1, 1}},
	}
	for _, tt := range tests {
		got, err := parseStat([]byte(tt.line))
		if err != nil || got != tt.want {
			t.Errorf("parseStat(%q) = %+v, %v; want %+v", tt.line, got, err, tt.want)
		}
	}
	for _, bad := range []string{
		"", "42", "42 (x", "x (y) S 1 2 3", "42 (x) S 1 2",
		"42 (x) SS 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 7",
		"42 (x) S a 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 7",
		"42 (x) S 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 -7",
	} {
		if _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("parseStat(%q) accepted a malformed line", bad)
		}
	}
}

func TestParseStatOwnProcess(t *testing.T) {
	st, err := readStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.PID != os.Getpid() || st.PPID != os.Getppid() || st.PGRP != syscall.Getpgrp() || st.StartTicks == 0 {
		t.Fatalf("readStat(self) = %+v; pid %d ppid %d pgrp %d", st, os.Getpid(), os.Getppid(), syscall.Getpgrp())
	}
	if !pidAlive(st.PID, st.StartTicks) || pidAlive(st.PID, st.StartTicks+1) {
		t.Fatal("pidAlive does not tell the process by its start time")
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add(statLine(42, "sleep", 'S', 1, 42, 40, 12345))
	f.Add(statLine(7, "a) (b", 'Z', 3, 4, 5, 6))
	f.Add("42 (x) S 1 2")
	f.Add("(")
	f.Add(")(")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := parseStat([]byte(s))
		if err != nil {
			return
		}
		if !strings.Contains(s, "("+st.Comm+")") {
			t.Fatalf("parseStat(%q): comm %q is not the parenthesised field", s, st.Comm)
		}
	})
}

func TestTreeMembers(t *testing.T) {
	const root, self = 100, 50
	procs := []procStat{
		{PID: 1, PPID: 0, PGRP: 1, Session: 1, State: 'S'},
		{PID: self, PPID: 1, PGRP: self, Session: self, State: 'S'},
		{PID: root, PPID: self, PGRP: root, Session: root, State: 'S'},
		{PID: 101, PPID: root, PGRP: root, Session: root, State: 'S'}, // child
		{PID: 102, PPID: 1, PGRP: root, Session: root, State: 'S'},    // orphan in the group
		{PID: 103, PPID: 101, PGRP: 103, Session: root, State: 'S'},   // own group, same session
		{PID: 104, PPID: 101, PGRP: 104, Session: 104, State: 'S'},    // own session, parent alive
		{PID: 105, PPID: 104, PGRP: 104, Session: 104, State: 'S'},    // its child
		{PID: 106, PPID: 101, PGRP: root, Session: root, State: 'Z'},  // zombie
		{PID: 107, PPID: 1, PGRP: 107, Session: 107, State: 'S'},      // escaped daemon
		{PID: 108, PPID: self, PGRP: self, Session: self, State: 'S'}, // the agent's other child
		{PID: 109, PPID: 106, PGRP: root, Session: root, State: 'R'},  // child of the zombie
		{PID: 110, PPID: 1, PGRP: 110, Session: root + 1, State: 'S'}, // unrelated
	}
	got := treeMembers(procs, root, self)
	slices.Sort(got)
	want := []int{root, 101, 102, 103, 104, 105, 109}
	if !slices.Equal(got, want) {
		t.Fatalf("treeMembers = %v, want %v", got, want)
	}
	if got := treeMembers(procs, 999, self); len(got) != 0 {
		t.Fatalf("treeMembers of an unknown root = %v, want none", got)
	}
}

// fakeProcs is a process table whose processes die when sent SIGKILL,
// and where one process forks a child into a group of its own while the
// first scan is read.
type fakeProcs struct {
	procs   map[int]procStat
	stopped []int
	sent    []int
	forked  bool
}

func (f *fakeProcs) scan() ([]procStat, error) {
	var out []procStat
	for _, p := range f.procs {
		out = append(out, p)
	}
	if !f.forked {
		f.forked = true
		f.procs[300] = procStat{PID: 300, PPID: 201, PGRP: 300, Session: 200, State: 'S'}
	}
	return out, nil
}

func (f *fakeProcs) signal(pid int, sig syscall.Signal) error {
	if sig == syscall.SIGSTOP {
		f.stopped = append(f.stopped, pid)
		return nil
	}
	if sig != syscall.SIGKILL {
		return fmt.Errorf("unexpected signal %v", sig)
	}
	f.sent = append(f.sent, pid)
	for id, p := range f.procs {
		if id == pid || (pid < 0 && p.PGRP == -pid) {
			delete(f.procs, id)
		}
	}
	return nil
}

func TestKillTreeFindsLateForks(t *testing.T) {
	f := &fakeProcs{procs: map[int]procStat{
		200: {PID: 200, PPID: 1, PGRP: 200, Session: 200, State: 'S'},
		201: {PID: 201, PPID: 200, PGRP: 201, Session: 200, State: 'S'},
		999: {PID: 999, PPID: 1, PGRP: 999, Session: 999, State: 'S'},
	}}
	k := treeKiller{scan: f.scan, signal: f.signal, self: 1}
	k.killTree(200)
	if _, ok := f.procs[999]; !ok {
		t.Fatal("an unrelated process was killed")
	}
	if len(f.procs) != 1 {
		t.Fatalf("left running: %v (signals %v)", f.procs, f.sent)
	}
	if len(f.stopped) != 1 || f.stopped[0] != -200 {
		t.Fatalf("SIGSTOP went to %v, want the group -200 first", f.stopped)
	}
}
