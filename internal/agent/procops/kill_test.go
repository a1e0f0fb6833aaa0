package procops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

// fakeVictim is a process that exits on the soft request when it obeys,
// and on the hard kill unless that is refused.
type fakeVictim struct {
	mu       sync.Mutex
	id       int
	obeys    bool  // exits on the soft request
	refuse   error // forceKill's error
	gone     bool
	asked    bool
	forced   bool
	closed   bool
	exitLate time.Duration // obeys only after this long
}

func (v *fakeVictim) pid() int { return v.id }

func (v *fakeVictim) askToExit() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.asked = true
	if v.obeys {
		if v.exitLate > 0 {
			time.AfterFunc(v.exitLate, func() { v.mu.Lock(); v.gone = true; v.mu.Unlock() })
		} else {
			v.gone = true
		}
	}
	return true
}

func (v *fakeVictim) forceKill() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.forced = true
	if v.refuse != nil {
		return v.refuse
	}
	v.gone = true
	return nil
}

func (v *fakeVictim) exited() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.gone
}

func (v *fakeVictim) close() { v.closed = true }

type fakeTable struct {
	vs  []*fakeVictim
	err error
}

func (f fakeTable) victims(nameMatcher) ([]victim, error) {
	out := make([]victim, len(f.vs))
	for i, v := range f.vs {
		out[i] = v
	}
	return out, f.err
}

func fakeKiller(vs ...*fakeVictim) killer {
	return killer{table: fakeTable{vs: vs}, poll: 5 * time.Millisecond, settle: 100 * time.Millisecond}
}

func TestKillSoftThenHard(t *testing.T) {
	obedient := &fakeVictim{id: 30, obeys: true}
	late := &fakeVictim{id: 10, obeys: true, exitLate: 50 * time.Millisecond}
	stubborn := &fakeVictim{id: 20}
	start := time.Now()
	res, err := fakeKiller(obedient, late, stubborn).kill(t.Context(), nameMatcher{}, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	want := agentproto.KillResult{Matched: []int{10, 20, 30}, Exited: 2, Killed: 1}
	if fmt.Sprint(res) != fmt.Sprint(want) {
		t.Fatalf("result %+v, want %+v", res, want)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Fatalf("hard kill after %v, before the grace", took)
	}
	for _, v := range []*fakeVictim{obedient, late, stubborn} {
		if !v.asked || !v.closed {
			t.Errorf("pid %d: asked=%v closed=%v", v.id, v.asked, v.closed)
		}
	}
	if obedient.forced || late.forced || !stubborn.forced {
		t.Error("the hard kill reached a process that had exited, or missed one that had not")
	}
}

func TestKillDoesNotWaitWhenAllExit(t *testing.T) {
	start := time.Now()
	res, err := fakeKiller(&fakeVictim{id: 1, obeys: true}).kill(t.Context(), nameMatcher{}, 10*time.Second)
	if err != nil || res.Exited != 1 || res.Killed != 0 {
		t.Fatalf("result %+v, %v", res, err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %v though the process exited at once", took)
	}
}

func TestKillNoMatch(t *testing.T) {
	res, err := fakeKiller().kill(t.Context(), nameMatcher{}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if string(b) != `{"matched":[],"exited":0,"killed":0}` {
		t.Fatalf("no match gives %s", b)
	}
}

func TestKillEndOfContextCutsTheGrace(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := fakeKiller(&fakeVictim{id: 1}).kill(ctx, nameMatcher{}, 10*time.Second)
	if err != nil || res.Killed != 1 {
		t.Fatalf("result %+v, %v", res, err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %v after the context ended", took)
	}
}

func TestKillRefused(t *testing.T) {
	denied := &fakeVictim{id: 5, refuse: fmt.Errorf("kill: %w", fs.ErrPermission)}
	_, err := fakeKiller(denied, &fakeVictim{id: 6}).kill(t.Context(), nameMatcher{}, 10*time.Millisecond)
	wantCode(t, err, CodePermissionDenied)
	if !strings.Contains(err.Error(), "pid 5") || !strings.Contains(err.Error(), "killed 1") {
		t.Fatalf("error %q does not say what happened", err)
	}
	other := &fakeVictim{id: 7, refuse: errors.New("odd")}
	_, err = fakeKiller(other).kill(t.Context(), nameMatcher{}, 10*time.Millisecond)
	wantCode(t, err, agentproto.CodeFailed)
}

func TestKillTableError(t *testing.T) {
	k := killer{table: fakeTable{err: errors.New("no table")}, poll: time.Millisecond}
	_, err := k.kill(t.Context(), nameMatcher{}, time.Second)
	wantCode(t, err, agentproto.CodeFailed)
}

func TestKillValidation(t *testing.T) {
	tests := []struct {
		name, path string
		data       any
	}{
		{"no path", "", agentproto.KillData{}},
		{"timeout too long", "x", agentproto.KillData{TimeoutS: agentproto.MaxKillTimeoutS + 1}},
		{"unknown field", "x", json.RawMessage(`{"timeout":1}`)},
	}
	for _, tt := range tests {
		_, err := call(t.Context(), t, agentproto.CtlKillProcess, tt.path, tt.data)
		wantCode(t, err, agentproto.CodeBadArgs)
	}
}

// killByName runs KILL_PROCESS.
func killByName(t *testing.T, name string, timeoutS int) agentproto.KillResult {
	t.Helper()
	res, err := call(t.Context(), t, agentproto.CtlKillProcess, name, agentproto.KillData{TimeoutS: timeoutS})
	if err != nil {
		t.Fatal(err)
	}
	return res.(agentproto.KillResult)
}

// TestKillHard: a process that ignores the soft request (SIGTERM on
// Linux; on Windows it has no window to close) is killed after timeout_s.
// On Windows the name is given in another case.
func TestKillHard(t *testing.T) {
	exe, name := helperCopy(t)
	cmd := startHelper(t, exe, "ignore-term")
	if runtime.GOOS == "windows" {
		name = strings.ToUpper(name)
	}
	start := time.Now()
	res := killByName(t, name, 1)
	want := agentproto.KillResult{Matched: []int{cmd.Process.Pid}, Killed: 1}
	if fmt.Sprint(res) != fmt.Sprint(want) {
		t.Fatalf("result %+v, want %+v", res, want)
	}
	if took := time.Since(start); took < time.Second {
		t.Fatalf("hard kill after %v, before timeout_s", took)
	}
	waitGone(t, []int{cmd.Process.Pid}, 5*time.Second)
}

// TestKillByPathAndNeverSelf: a full path picks the processes of that
// executable only, and the agent's own executable is never matched.
func TestKillByPathAndNeverSelf(t *testing.T) {
	exe, _ := helperCopy(t)
	cmd := startHelper(t, exe, "ignore-term")
	other, _ := helperCopy(t)
	bystander := startHelper(t, other, "ignore-term")
	res := killByName(t, exe, 1)
	if len(res.Matched) != 1 || res.Matched[0] != cmd.Process.Pid || res.Killed != 1 {
		t.Fatalf("result %+v, want only pid %d", res, cmd.Process.Pid)
	}
	if !alive(bystander.Process.Pid) {
		t.Fatal("a process of another executable was killed")
	}
	if res := killByName(t, testExe(t), 1); len(res.Matched) != 0 {
		t.Fatalf("the agent's own executable matched: %+v", res)
	}
}
