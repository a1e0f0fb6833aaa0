package orchestrate

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// linuxProcs finds processes in /proc and stops them with signals.
type linuxProcs struct{}

func systemProcs() procs { return linuxProcs{} }

// start starts exe in a new session (no signal for the agent's process
// group or terminal reaches it) with stdin, stdout and stderr on
// /dev/null, and reaps it in the background so that no zombie stays while
// the agent runs; if the agent ends first, init adopts it.
func (linuxProcs) start(exe, dir string, args []string) (int, error) {
	cmd := &exec.Cmd{Path: exe, Args: append([]string{exe}, args...), Dir: dir,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true}}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go func() { _ = cmd.Wait() }()
	return cmd.Process.Pid, nil
}

// under reads /proc/<pid>/exe of every process; those of other users the
// agent may not read are passed over.
func (linuxProcs) under(dir string) ([]process, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	var out []process
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		exe, err := os.Readlink("/proc/" + e.Name() + "/exe")
		if err != nil || !strings.HasPrefix(exe, prefix) {
			continue
		}
		started, live := procStart(pid)
		if live {
			out = append(out, process{PID: pid, Exe: exe, Started: started})
		}
	}
	return out, nil
}

// procStart reads a process's start time (clock ticks after boot) from
// /proc/<pid>/stat and whether it still runs (not a zombie).
func procStart(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name in parentheses may hold anything; the fields
	// after the last ')' are state (3) … starttime (22).
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	started, err := strconv.ParseUint(f[19], 10, 64)
	return started, err == nil
}

func (linuxProcs) alive(p process) bool {
	started, live := procStart(p.PID)
	return live && started == p.Started
}

func (l linuxProcs) quit(p process) error  { return l.signal(p, syscall.SIGTERM) }
func (l linuxProcs) close(p process) error { return l.signal(p, syscall.SIGHUP) }
func (l linuxProcs) kill(p process) error  { return l.signal(p, syscall.SIGKILL) }

// errGone: the process ended before the signal.
var errGone = errors.New("the process has ended")

// signal sends sig while p's pid still names p.
func (l linuxProcs) signal(p process, sig syscall.Signal) error {
	if !l.alive(p) {
		return errGone
	}
	err := syscall.Kill(p.PID, sig)
	if errors.Is(err, syscall.ESRCH) {
		return errGone
	}
	return err
}
