// Package svctest lets a Windows test binary stand in for a service: a
// test registers the binary with the service manager, naming a test that
// calls Serve and an argument only that registration passes, and the
// service manager then runs it as a service that answers until stopped.
// For the agent's service tests under Wine and Windows.
package svctest

import (
	"flag"
	"os"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/windows/svc"
)

// Serve answers as a service, spending pending in StartPending and in
// StopPending (0 for neither), when
// the service manager started this test binary with arg, and exits the
// process when the service is stopped; run any other way it skips t.
// svc.IsWindowsService is false under Wine, hence the argument.
func Serve(t *testing.T, arg string, pending time.Duration) {
	if !slices.Contains(flag.Args(), arg) {
		t.Skip("only runs under the service manager")
	}
	_ = svc.Run("", service{pending: pending})
	os.Exit(0)
}

type service struct{ pending time.Duration }

func (s service) Execute(_ []string, req <-chan svc.ChangeRequest, status chan<- svc.Status) (bool, uint32) {
	if s.pending > 0 {
		status <- svc.Status{State: svc.StartPending}
		time.Sleep(s.pending)
	}
	status <- svc.Status{State: svc.Running, Accepts: svc.AcceptStop}
	for r := range req {
		switch r.Cmd {
		case svc.Interrogate:
			status <- r.CurrentStatus
		case svc.Stop, svc.Shutdown:
			status <- svc.Status{State: svc.StopPending}
			time.Sleep(s.pending)
			return false, 0
		}
	}
	return false, 0
}
