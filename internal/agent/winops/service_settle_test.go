package winops

import (
	"context"
	"errors"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

// fakeService is a scripted service: each query pops the next state of
// its queue (the last state stays), start and stop load a new script.
type fakeService struct {
	queue         []uint32
	afterStart    []uint32
	afterStop     []uint32
	afterContinue []uint32
	busy          int // control calls answered errControlBusy first
	startErr      error
	queryErr      error
	exitCode      uint32
	starts, stops int
	continues     int
}

func (f *fakeService) query() (svcState, error) {
	if f.queryErr != nil {
		return svcState{}, f.queryErr
	}
	st := f.queue[0]
	if len(f.queue) > 1 {
		f.queue = f.queue[1:]
	}
	return svcState{State: st, ExitCode: f.exitCode}, nil
}

func (f *fakeService) start() error {
	if f.startErr != nil {
		return f.startErr
	}
	f.starts++
	f.queue = append([]uint32(nil), f.afterStart...)
	return nil
}

func (f *fakeService) control(code uint32) error {
	if f.busy > 0 {
		f.busy--
		return errControlBusy
	}
	switch code {
	case controlStop:
		f.stops++
		f.queue = append([]uint32(nil), f.afterStop...)
	case controlContinue:
		f.continues++
		f.queue = append([]uint32(nil), f.afterContinue...)
	}
	return nil
}

var fastSettler = settler{first: time.Millisecond, most: 2 * time.Millisecond}

func TestDriveTo(t *testing.T) {
	const (
		stopped = stateStopped
		running = stateRunning
		startP  = stateStartPending
		stopP   = stateStopPending
	)
	cases := []struct {
		name                     string
		svc                      fakeService
		want                     uint32
		code                     string
		starts, stops, continues int
	}{
		{name: "start a stopped service", want: running,
			svc:    fakeService{queue: []uint32{stopped}, afterStart: []uint32{startP, startP, running}},
			starts: 1},
		{name: "start a running service", want: running,
			svc: fakeService{queue: []uint32{running}}},
		{name: "start waits for a pending stop first", want: running,
			svc:    fakeService{queue: []uint32{stopP, stopP, stopped}, afterStart: []uint32{startP, running}},
			starts: 1},
		{name: "service dies while starting", want: running, code: agentproto.CodeFailed,
			svc:    fakeService{queue: []uint32{stopped}, afterStart: []uint32{startP, stopped}, exitCode: 1066},
			starts: 1},
		{name: "start never settles", want: running, code: CodeServiceTimeout,
			svc:    fakeService{queue: []uint32{stopped}, afterStart: []uint32{startP}},
			starts: 1},
		{name: "start refused", want: running, code: agentproto.CodeFailed,
			svc: fakeService{queue: []uint32{stopped}, startErr: codeError(agentproto.CodeFailed, "disabled")}},
		{name: "start continues a paused service", want: running,
			svc:       fakeService{queue: []uint32{statePaused}, afterContinue: []uint32{stateContinuePending, running}},
			continues: 1},
		{name: "stop a running service", want: stopped,
			svc:   fakeService{queue: []uint32{running}, afterStop: []uint32{stopP, stopP, stopped}},
			stops: 1},
		{name: "stop a stopped service", want: stopped,
			svc: fakeService{queue: []uint32{stopped}}},
		{name: "stop waits for a pending start", want: stopped,
			svc:   fakeService{queue: []uint32{startP, startP, running}, afterStop: []uint32{stopped}},
			stops: 1},
		{name: "stop retries a busy service", want: stopped,
			svc:   fakeService{queue: []uint32{running}, busy: 2, afterStop: []uint32{stopped}},
			stops: 1},
		{name: "stop never settles", want: stopped, code: CodeServiceTimeout,
			svc:   fakeService{queue: []uint32{running}, afterStop: []uint32{stopP}},
			stops: 1},
		{name: "query fails", want: running, code: agentproto.CodeFailed,
			svc: fakeService{queue: []uint32{stopped}, queryErr: codeError(agentproto.CodeFailed, "gone")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Generous unless the case is about timing out.
			limit := 10 * time.Second
			if c.code == CodeServiceTimeout {
				limit = 50 * time.Millisecond
			}
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			defer cancel()
			svc := c.svc
			st, err := fastSettler.driveTo(ctx, &svc, c.want)
			if errCode(err) != c.code {
				t.Fatalf("err %v, want code %q", err, c.code)
			}
			if err == nil && st.State != c.want {
				t.Errorf("final state %s, want %s", stateName(st.State), stateName(c.want))
			}
			if svc.starts != c.starts || svc.stops != c.stops || svc.continues != c.continues {
				t.Errorf("starts %d stops %d continues %d, want %d %d %d", svc.starts, svc.stops, svc.continues, c.starts, c.stops, c.continues)
			}
		})
	}
}

func TestRestart(t *testing.T) {
	svc := fakeService{
		queue:      []uint32{stateRunning},
		afterStop:  []uint32{stateStopPending, stateStopped},
		afterStart: []uint32{stateStartPending, stateRunning},
	}
	st, err := fastSettler.restart(context.Background(), time.Second, &svc)
	if err != nil || st.State != stateRunning || svc.stops != 1 || svc.starts != 1 {
		t.Fatalf("restart: state %s, err %v, stops %d, starts %d", stateName(st.State), err, svc.stops, svc.starts)
	}
	// A stopped service is simply started.
	svc = fakeService{queue: []uint32{stateStopped}, afterStart: []uint32{stateRunning}}
	if st, err := fastSettler.restart(context.Background(), time.Second, &svc); err != nil || st.State != stateRunning || svc.stops != 0 {
		t.Fatalf("restart of a stopped service: %s %v, stops %d", stateName(st.State), err, svc.stops)
	}
}

// Each phase of a restart has its own timeout.
func TestRestartPhaseTimeout(t *testing.T) {
	svc := fakeService{queue: []uint32{stateRunning}, afterStop: []uint32{stateStopPending}}
	start := time.Now()
	_, err := fastSettler.restart(context.Background(), 50*time.Millisecond, &svc)
	if errCode(err) != CodeServiceTimeout || svc.starts != 0 || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v, starts %d, after %v", err, svc.starts, time.Since(start))
	}
}

// The wait ends with the context, not with the poll interval.
func TestDriveToHonoursContext(t *testing.T) {
	svc := fakeService{queue: []uint32{stateStartPending}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err := settler{first: time.Hour, most: time.Hour}.driveTo(ctx, &svc, stateRunning)
	var e *agentproto.Error
	if !errors.As(err, &e) || e.Code != CodeServiceTimeout || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}
