package procops

import (
	"context"
	"errors"
	"os/exec"
	"sync/atomic"
	"time"

	"hostgate/internal/agentproto"
)

// pipeGrace is how long EXEC_SHELL waits, once the program has ended (or
// its tree was killed), for stdout and stderr to close. A process the
// program left running in the background keeps them open; after the
// grace the agent closes its ends and returns what it has.
const pipeGrace = 2 * time.Second

// processTree is how a platform keeps hold of a command and of every
// process the command starts, so that a timeout ends all of them and not
// only the first (tree_*.go).
type processTree interface {
	// prepare sets the start attributes; it runs before cmd.Start.
	prepare(cmd *exec.Cmd)
	// adopt takes hold of the started process and lets it run.
	adopt(cmd *exec.Cmd) error
	// kill ends the whole tree. It may run at any time after adopt and
	// does nothing after release.
	kill()
	// release lets go once the command has ended. Processes the command
	// left running in the background are not killed.
	release()
}

// execShell is EXEC_SHELL: it runs the program synchronously and answers
// with its output and exit code.
func execShell(ctx context.Context, a agentproto.ControlArgs) (any, error) {
	var d agentproto.ShellData
	if err := agentproto.DecodeData(a.Data, &d); err != nil {
		return nil, err
	}
	p, err := findProgram(a.Path, d.Args)
	if err != nil {
		return nil, err
	}
	cmd, err := p.command()
	if err != nil {
		return nil, err
	}
	timeout := d.TimeoutS
	if timeout == 0 {
		timeout = agentproto.DefaultShellTimeoutS
	}
	return runTree(ctx, cmd, newProcessTree(), time.Duration(timeout)*time.Second)
}

// runTree runs cmd in tree, capturing its output, until it ends, timeout
// passes or ctx ends; in the last two cases the whole tree is killed.
// A timeout, or ctx passing its deadline, gives a result with TimedOut
// set; ctx cancelled for another reason (the agent stopping) gives an
// error.
func runTree(ctx context.Context, cmd *exec.Cmd, tree processTree, timeout time.Duration) (agentproto.ShellResult, error) {
	stdout := newCappedBuffer(agentproto.ShellOutputCap)
	stderr := newCappedBuffer(agentproto.ShellOutputCap)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, stdout, stderr
	cmd.WaitDelay = pipeGrace
	tree.prepare(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return agentproto.ShellResult{}, startError(cmd.Args[0], err)
	}
	if err := tree.adopt(cmd); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return agentproto.ShellResult{}, fail(agentproto.CodeFailed, "taking hold of the process tree: %v", err)
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var killed atomic.Bool
	stop := context.AfterFunc(runCtx, func() {
		killed.Store(true)
		tree.kill()
	})
	waitErr := cmd.Wait()
	stop()
	tree.release() // waits for a kill under way
	if cmd.ProcessState == nil {
		return agentproto.ShellResult{}, fail(agentproto.CodeFailed, "waiting for %s: %v", cmd.Args[0], waitErr)
	}
	if killed.Load() && errors.Is(ctx.Err(), context.Canceled) {
		return agentproto.ShellResult{}, fail(agentproto.CodeFailed, "cancelled: the process tree was killed")
	}
	return shellResult(cmd, killed.Load(), time.Since(start), stdout, stderr), nil
}

// shellResult assembles the answer of a finished command.
func shellResult(cmd *exec.Cmd, timedOut bool, took time.Duration, stdout, stderr *cappedBuffer) agentproto.ShellResult {
	out, outCut := stdout.Bytes()
	errOut, errCut := stderr.Bytes()
	res := agentproto.ShellResult{
		Stdout:     outputText(out, outCut),
		Stderr:     outputText(errOut, errCut),
		ExitCode:   cmd.ProcessState.ExitCode(),
		DurationMs: took.Milliseconds(),
		TimedOut:   timedOut,
		Truncated:  outCut || errCut,
	}
	if timedOut {
		res.ExitCode = -1
	}
	return res
}
