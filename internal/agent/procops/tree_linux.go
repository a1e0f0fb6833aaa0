package procops

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// sessionTree holds an EXEC_SHELL command on Linux. The command starts in
// a session of its own, which also makes it the leader of a new process
// group, so the tree is: every process of that group, every process of
// that session (a shell with job control, or any program, may move its
// children to groups of their own, but only setsid leaves the session),
// and every living descendant of those by parent pid (which catches a
// child that did call setsid while its parent still runs). A daemon that
// started a session of its own and whose parent has ended is not found:
// it has cut every link to the command, by design.
type sessionTree struct {
	mu     sync.Mutex
	pid    int
	done   bool
	killer treeKiller
}

func newProcessTree() processTree {
	return &sessionTree{killer: treeKiller{scan: scanProcs, signal: syscall.Kill, self: os.Getpid()}}
}

func (t *sessionTree) prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

func (t *sessionTree) adopt(cmd *exec.Cmd) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pid = cmd.Process.Pid
	return nil
}

func (t *sessionTree) kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done || t.pid <= 1 {
		return
	}
	t.killer.killTree(t.pid)
}

func (t *sessionTree) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done = true
}

// killRounds bounds how often killTree looks again for processes that
// were forked while it killed.
const killRounds = 10

// treeKiller kills a session tree; scan and signal are the system's
// (scanProcs, syscall.Kill) or a test's.
type treeKiller struct {
	scan   func() ([]procStat, error)
	signal func(pid int, sig syscall.Signal) error
	self   int
}

// killTree first stops root's process group, so that its members can
// neither fork nor die (which would cut the parent links treeMembers
// follows) while the table is read; then it sends SIGKILL to every member
// of the tree (treeMembers) and to the group, and looks again until a
// scan finds no member it has not killed already. A process killed by
// SIGKILL cannot fork any more, so the rounds end quickly.
func (k treeKiller) killTree(root int) {
	_ = k.signal(-root, syscall.SIGSTOP)
	killed := map[int]bool{}
	for range killRounds {
		procs, err := k.scan()
		if err != nil {
			break
		}
		fresh := 0
		for _, pid := range treeMembers(procs, root, k.self) {
			if !killed[pid] {
				killed[pid] = true
				fresh++
				_ = k.signal(pid, syscall.SIGKILL)
			}
		}
		_ = k.signal(-root, syscall.SIGKILL)
		if fresh == 0 {
			return
		}
	}
	_ = k.signal(-root, syscall.SIGKILL)
}

// treeMembers returns the living processes of root's tree: root, the
// members of its process group and session, and their descendants by
// parent pid. It never returns self or pid 1.
func treeMembers(procs []procStat, root, self int) []int {
	children := make(map[int][]int, len(procs))
	state := make(map[int]byte, len(procs))
	queue := []int{root}
	for _, p := range procs {
		children[p.PPID] = append(children[p.PPID], p.PID)
		state[p.PID] = p.State
		if p.PID != root && (p.PGRP == root || p.Session == root) {
			queue = append(queue, p.PID)
		}
	}
	seen := map[int]bool{}
	var out []int
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		if st, ok := state[pid]; ok && !isDead(st) && pid != self && pid > 1 {
			out = append(out, pid)
		}
		queue = append(queue, children[pid]...)
	}
	return out
}
