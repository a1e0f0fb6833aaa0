package procops

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"hostgate/internal/agentproto"
)

// victim is a process KILL_PROCESS matched and holds on to (victim_*.go).
// Every method is safe after the process has ended.
type victim interface {
	pid() int
	// askToExit makes the soft request: SIGTERM on Linux, WM_CLOSE to the
	// process's top-level windows on Windows. It reports whether the
	// request reached the process (a Windows process may have no window).
	askToExit() bool
	// forceKill ends the process: SIGKILL, TerminateProcess.
	forceKill() error
	// exited reports whether the process has ended.
	exited() bool
	close()
}

// processTable finds the processes to kill.
type processTable interface {
	// victims returns the living processes m matches, never the agent.
	victims(m nameMatcher) ([]victim, error)
}

// killer carries out KILL_PROCESS over a process table.
type killer struct {
	table processTable
	// poll is how often it looks whether the processes have ended.
	poll time.Duration
	// settle bounds the wait for hard-killed processes to be gone, so that
	// a caller may restart a program at once (its port, its files free).
	settle time.Duration
}

var systemKiller = killer{table: systemTable{}, poll: 50 * time.Millisecond, settle: 5 * time.Second}

// killProcess is KILL_PROCESS.
func killProcess(ctx context.Context, a agentproto.ControlArgs) (any, error) {
	var d agentproto.KillData
	if err := agentproto.DecodeData(a.Data, &d); err != nil {
		return nil, err
	}
	grace := d.TimeoutS
	if grace == 0 {
		grace = agentproto.DefaultKillTimeoutS
	}
	return systemKiller.kill(ctx, newMatcher(a.Path, runtime.GOOS == "windows"), time.Duration(grace)*time.Second)
}

// kill asks every process m matches to exit, waits up to grace for them
// (less if ctx ends), then kills those still running. A process that
// could not be killed makes it fail: the caller would otherwise believe
// the program stopped.
func (k killer) kill(ctx context.Context, m nameMatcher, grace time.Duration) (agentproto.KillResult, error) {
	vs, err := k.table.victims(m)
	if err != nil {
		return agentproto.KillResult{}, fail(agentproto.CodeFailed, "reading the process table: %v", err)
	}
	defer func() {
		for _, v := range vs {
			v.close()
		}
	}()
	res := agentproto.KillResult{Matched: make([]int, 0, len(vs))}
	for _, v := range vs {
		res.Matched = append(res.Matched, v.pid())
	}
	slices.Sort(res.Matched)
	for _, v := range vs {
		v.askToExit()
	}
	k.waitExited(ctx, vs, grace)
	var hard []victim
	var failed []string
	var denied bool
	for _, v := range vs {
		if v.exited() {
			res.Exited++
			continue
		}
		if err := v.forceKill(); err != nil {
			if v.exited() {
				res.Exited++
				continue
			}
			denied = denied || errors.Is(err, fs.ErrPermission)
			failed = append(failed, fmt.Sprintf("pid %d: %v", v.pid(), err))
			continue
		}
		res.Killed++
		hard = append(hard, v)
	}
	k.waitExited(ctx, hard, k.settle)
	if len(failed) > 0 {
		code := agentproto.CodeFailed
		if denied {
			code = CodePermissionDenied
		}
		return res, fail(code, "matched %d, exited %d, killed %d; could not kill %s",
			len(vs), res.Exited, res.Killed, strings.Join(failed, "; "))
	}
	return res, nil
}

// waitExited returns when every victim has ended, after d, or when ctx
// ends, whichever comes first.
func (k killer) waitExited(ctx context.Context, vs []victim, d time.Duration) {
	if len(vs) == 0 {
		return
	}
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(k.poll)
	defer tick.Stop()
	for {
		if !slices.ContainsFunc(vs, func(v victim) bool { return !v.exited() }) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-tick.C:
		}
	}
}

// systemTable is the operating system's process table.
type systemTable struct{}

func (systemTable) victims(m nameMatcher) ([]victim, error) {
	procs, err := snapshot()
	if err != nil {
		return nil, err
	}
	self := selfProcess()
	var out []victim
	for _, p := range procs {
		if p.Dead || !m.matches(p.Name, p.Exe) || self.is(p, m) {
			continue
		}
		if v, ok := openVictim(p); ok {
			out = append(out, v)
		}
	}
	return out, nil
}

// agentSelf identifies the agent's own processes.
type agentSelf struct {
	pid int
	exe string
}

func selfProcess() agentSelf {
	exe, _ := os.Executable()
	return agentSelf{pid: os.Getpid(), exe: exe}
}

// is reports whether p is the agent, or another process of the agent's
// own executable (the service and the logon worker run the same file):
// killing it would cut the host off.
func (s agentSelf) is(p procEntry, m nameMatcher) bool {
	if p.PID == s.pid {
		return true
	}
	return s.exe != "" && p.Exe != "" && m.equal(m.norm(p.Exe), m.norm(s.exe))
}
