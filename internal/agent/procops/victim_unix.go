//go:build !windows

package procops

import (
	"errors"
	"syscall"
)

// errGone: the process ended before the signal.
var errGone = errors.New("the process has ended")

// unixVictim is a process to kill by signals. Its start time (ident)
// guards against a pid reused by another process during the wait: a
// signal is only sent while the pid still names the process matched.
type unixVictim struct {
	p     int
	ident uint64
}

func openVictim(e procEntry) (victim, bool) { return &unixVictim{p: e.PID, ident: e.Ident}, true }

func (v *unixVictim) pid() int     { return v.p }
func (v *unixVictim) exited() bool { return !pidAlive(v.p, v.ident) }
func (v *unixVictim) close()       {}

func (v *unixVictim) askToExit() bool { return v.signal(syscall.SIGTERM) == nil }

func (v *unixVictim) forceKill() error { return v.signal(syscall.SIGKILL) }

func (v *unixVictim) signal(sig syscall.Signal) error {
	if v.exited() {
		return errGone
	}
	err := syscall.Kill(v.p, sig)
	if errors.Is(err, syscall.ESRCH) {
		return errGone
	}
	return err
}
