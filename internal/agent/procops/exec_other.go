//go:build !windows

package procops

import (
	"syscall"
)

// startDetached starts p in a session of its own (so no signal meant for
// the agent's process group or terminal reaches it), with stdin, stdout
// and stderr on /dev/null, and reaps it in the background when it ends
// so that no zombie remains.
func startDetached(p program) (int, error) {
	cmd, err := p.command()
	if err != nil {
		return 0, err
	}
	cmd.Dir = p.workDir()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go func() { _ = cmd.Wait() }()
	return cmd.Process.Pid, nil
}
