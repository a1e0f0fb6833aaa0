package winops

import (
	"context"
	"errors"
	"time"

	"hostgate/internal/agentproto"
)

// Service control codes (SERVICE_CONTROL_*).
const (
	controlStop     uint32 = 1
	controlContinue uint32 = 3
)

// errControlBusy: the service cannot accept a control now (it is in a
// pending state); the caller waits and tries again.
var errControlBusy = errors.New("service cannot accept the control now")

// svcState is what the service manager reports about a running service.
type svcState struct {
	State    uint32
	PID      uint32
	ExitCode uint32 // Win32 exit code; 1066 means see SpecificExit
	Specific uint32 // service-specific exit code
}

// svcController is the part of the service manager that start, stop and
// restart drive. The Windows implementation wraps one service handle;
// tests use a scripted fake.
type svcController interface {
	query() (svcState, error)
	// start starts a stopped service; a running one is not an error.
	start() error
	// control sends a control code; it returns errControlBusy when the
	// service cannot take it now, and nil for stop of a stopped service.
	control(code uint32) error
}

// settler drives a service to a state and waits for it, polling with a
// growing interval (first, then ×3/2 up to most).
type settler struct {
	first, most time.Duration
}

// driveTo brings the service to want (stateRunning or stateStopped),
// sending start, continue or stop as the current state calls for, and
// returns the final state. It gives up with CodeServiceTimeout when ctx
// ends, and with CodeFailed when a service it started stops again.
func (s settler) driveTo(ctx context.Context, c svcController, want uint32) (svcState, error) {
	started := false
	wait := s.first
	for {
		st, err := c.query()
		if err != nil {
			return st, err
		}
		if st.State == want {
			return st, nil
		}
		if want == stateRunning && st.State == stateStopped && started {
			return st, codeError(agentproto.CodeFailed, "the service stopped while starting (exit code %d, service exit code %d)", st.ExitCode, st.Specific)
		}
		sent, err := s.step(c, st.State, want)
		if err != nil {
			return st, err
		}
		if sent && want == stateRunning && st.State == stateStopped {
			started = true
			continue
		}
		select {
		case <-ctx.Done():
			return st, codeError(CodeServiceTimeout, "the service is still %s, not %s", stateName(st.State), stateName(want))
		case <-time.After(wait):
		}
		wait = min(wait*3/2, s.most)
	}
}

// step sends what moves a service in state cur towards want, if anything
// can be sent now; pending states are left to finish.
func (settler) step(c svcController, cur, want uint32) (bool, error) {
	var err error
	switch {
	case want == stateRunning && cur == stateStopped:
		err = c.start()
	case want == stateRunning && cur == statePaused:
		err = c.control(controlContinue)
	case want == stateStopped && (cur == stateRunning || cur == statePaused):
		err = c.control(controlStop)
	default:
		return false, nil
	}
	if errors.Is(err, errControlBusy) {
		return false, nil
	}
	return err == nil, err
}

// within is driveTo bounded by timeout as well as by ctx.
func (s settler) within(ctx context.Context, timeout time.Duration, c svcController, want uint32) (svcState, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return s.driveTo(ctx, c, want)
}

// restart stops the service, waits for it to stop, then starts it; each
// phase may take timeout (the hub waits twice timeout_s for a restart).
func (s settler) restart(ctx context.Context, timeout time.Duration, c svcController) (svcState, error) {
	if st, err := s.within(ctx, timeout, c, stateStopped); err != nil {
		return st, err
	}
	return s.within(ctx, timeout, c, stateRunning)
}
