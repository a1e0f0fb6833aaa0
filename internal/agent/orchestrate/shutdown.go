package orchestrate

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"time"

	"hostgate/internal/agentproto"
)

// Shutdown stops the family found by its executables under the game
// directory, in three stages: (1) the controller is killed so that it
// cannot restart children; (2) each child, in reverse start order
// (reverse manifest order, the later-started instance of a section
// first), gets the quit message and its kind's wait; (3) a child still
// running gets the window close and the close wait, then is terminated.
// timeout_override_s replaces the waits of stages 2 and 3. A child with
// no running process is reported not_running. If ctx ends, Shutdown stops
// where it is (the remaining processes keep running) and fails.
func (o *Orchestrator) Shutdown(ctx context.Context, req ShutdownRequest) (ShutdownResult, error) {
	d := req.OrchestrateShutdownData
	if err := d.Validate(req.BasePath); err != nil {
		return ShutdownResult{}, err
	}
	gameDir, err := ResolveGameDir(req.BasePath, d.Controller(), d.ResolveGameDir)
	if err != nil {
		return ShutdownResult{}, err
	}
	manifest, err := LoadManifest(gameDir)
	if err != nil {
		return ShutdownResult{}, err
	}
	res := ShutdownResult{GameDir: gameDir, Stopped: []agentproto.OrchestrateStopped{}}
	if res.Controller, err = o.killController(ctx, gameDir, filepath.Join(gameDir, d.Controller())); err != nil {
		return res, err
	}
	// A fresh look after stage 1: the controller may have started a child
	// since the first one.
	running, err := o.sys.under(gameDir)
	if err != nil {
		return res, systemError("reading the process table", err)
	}
	for _, e := range slices.Backward(manifest) {
		exe := filepath.Join(gameDir, filepath.FromSlash(e.Exe))
		ps := matching(running, exe)
		if len(ps) == 0 {
			res.Stopped = append(res.Stopped, agentproto.OrchestrateStopped{Section: e.Section, Exe: exe, Stage: agentproto.StageNotRunning})
			continue
		}
		wait, closeWait := o.waitsFor(e, d.TimeoutOverrideS)
		for _, p := range ps {
			stage, err := o.stop(ctx, p, wait, closeWait)
			if err != nil {
				return res, err
			}
			res.Stopped = append(res.Stopped, agentproto.OrchestrateStopped{Section: e.Section, Exe: exe, PID: p.PID, Stage: stage})
		}
	}
	return res, nil
}

// killController is stage 1. Every running copy of the controller is
// killed and must be gone before the children are touched.
func (o *Orchestrator) killController(ctx context.Context, gameDir, ctrl string) (agentproto.OrchestrateKilled, error) {
	running, err := o.sys.under(gameDir)
	if err != nil {
		return agentproto.OrchestrateKilled{}, systemError("reading the process table", err)
	}
	ps := matching(running, ctrl)
	if len(ps) == 0 {
		return agentproto.OrchestrateKilled{}, nil
	}
	res := agentproto.OrchestrateKilled{PID: ps[len(ps)-1].PID}
	for _, p := range ps {
		if err := o.sys.kill(p); err != nil && o.sys.alive(p) {
			return res, systemError("killing the controller "+ctrl, err)
		}
	}
	for _, p := range ps {
		if gone, err := o.waitGone(ctx, p, o.settle); err != nil {
			return res, fail(agentproto.CodeFailed, "stage 1: %v", err)
		} else if !gone {
			return res, fail(agentproto.CodeFailed, "the controller %s (pid %d) is still running %v after it was killed", ctrl, p.PID, o.settle)
		}
	}
	res.Killed = true
	return res, nil
}

// stop runs stages 2 and 3 on one child and reports the stage it ended at.
func (o *Orchestrator) stop(ctx context.Context, p process, wait, closeWait time.Duration) (string, error) {
	if !o.sys.alive(p) {
		return agentproto.StageNotRunning, nil
	}
	// A message that cannot be delivered (a Windows process without a
	// window) moves on to the next stage at once.
	if o.sys.quit(p) == nil {
		if gone, err := o.waitGone(ctx, p, wait); err != nil || gone {
			return agentproto.StageQuit, err
		}
	} else if !o.sys.alive(p) {
		return agentproto.StageNotRunning, nil
	}
	if o.sys.close(p) == nil {
		if gone, err := o.waitGone(ctx, p, closeWait); err != nil || gone {
			return agentproto.StageClose, err
		}
	}
	if err := o.sys.kill(p); err != nil && o.sys.alive(p) {
		return "", systemError("terminating "+p.Exe, err)
	}
	if gone, err := o.waitGone(ctx, p, o.settle); err != nil {
		return "", err
	} else if !gone {
		return "", fail(agentproto.CodeFailed, "%s (pid %d) is still running %v after it was terminated", p.Exe, p.PID, o.settle)
	}
	return agentproto.StageKill, nil
}

// waitsFor is the stage-2 and stage-3 wait of e.
func (o *Orchestrator) waitsFor(e Entry, override *int) (time.Duration, time.Duration) {
	if override != nil {
		d := time.Duration(*override) * time.Second
		return d, d
	}
	wait := e.Wait
	if w, ok := o.waits[e.Kind]; ok && e.Kind != "" {
		wait = w
	}
	return wait, o.closeWait
}

// waitGone waits up to d for p to end. It fails only when ctx ends.
func (o *Orchestrator) waitGone(ctx context.Context, p process, d time.Duration) (bool, error) {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(o.poll)
	defer tick.Stop()
	for {
		if !o.sys.alive(p) {
			return true, nil
		}
		if !time.Now().Before(deadline) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, fail(agentproto.CodeFailed, "stopped waiting for %s (pid %d): %v", p.Exe, p.PID, ctx.Err())
		case <-tick.C:
		}
	}
}

// matching returns the processes of exe, the last started first.
func matching(ps []process, exe string) []process {
	var out []process
	for _, p := range ps {
		if samePath(p.Exe, exe) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b process) int { return cmp.Compare(b.Started, a.Started) })
	return out
}
