package procops

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

// fakeStats gives CPU times that grow by rate seconds per call, and
// reads nothing of pid 3 (another user's process).
type fakeStats struct {
	calls map[int]int
	rate  map[int]float64
}

func (f *fakeStats) cpuSeconds(_ context.Context, pid int) (float64, bool) {
	if pid == 3 {
		return 0, false
	}
	f.calls[pid]++
	return float64(f.calls[pid]) * f.rate[pid], true
}

func (f *fakeStats) details(_ context.Context, pid int, info *agentproto.ProcessInfo) {
	if pid == 3 {
		return
	}
	info.User = "u"
	info.RSSBytes = 250
	info.StartedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
}

func (f *fakeStats) memTotal(context.Context) uint64 { return 1000 }

func fakeLister(procs []procEntry, err error) lister {
	return lister{
		snapshot: func() ([]procEntry, error) { return slices.Clone(procs), err },
		stats:    &fakeStats{calls: map[int]int{}, rate: map[int]float64{2: 0.05}},
		sample:   100 * time.Millisecond,
	}
}

func TestListFieldsFilterAndOrder(t *testing.T) {
	procs := []procEntry{
		{PID: 3, PPID: 1, Name: "secret", Exe: ""},
		{PID: 2, PPID: 1, Name: "busy", Exe: "/usr/bin/busy"},
		{PID: 1, PPID: 0, Name: "init", Exe: "/sbin/init"},
	}
	res, err := fakeLister(procs, nil).list(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	ps := res.Processes
	if len(ps) != 3 || ps[0].PID != 1 || ps[1].PID != 2 || ps[2].PID != 3 {
		t.Fatalf("processes %+v, want pids 1, 2, 3", ps)
	}
	busy := ps[1]
	// 0.05 s of CPU in about 0.1 s: about 50 %.
	if busy.CPUPct < 20 || busy.CPUPct > 55 || busy.MemPct != 25 || busy.RSSBytes != 250 || busy.User != "u" || busy.Exe != "/usr/bin/busy" {
		t.Fatalf("busy = %+v", busy)
	}
	if ps[2] != (agentproto.ProcessInfo{PID: 3, PPID: 1, Name: "secret"}) {
		t.Fatalf("an unreadable process = %+v, want only what the table gave", ps[2])
	}
	res, err = fakeLister(procs, nil).list(t.Context(), "busy")
	if err != nil || len(res.Processes) != 1 || res.Processes[0].PID != 2 {
		t.Fatalf("filtered: %+v, %v", res, err)
	}
	if res, _ := fakeLister(procs, nil).list(t.Context(), "nothing"); res.Processes == nil || len(res.Processes) != 0 {
		t.Fatalf("no match gives %#v, want an empty list", res.Processes)
	}
}

func TestListErrors(t *testing.T) {
	_, err := fakeLister(nil, errors.New("no table")).list(t.Context(), "")
	wantCode(t, err, agentproto.CodeFailed)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = fakeLister([]procEntry{{PID: 1}}, nil).list(ctx, "")
	wantCode(t, err, agentproto.CodeFailed)
}

// TestListOwnChild reads the real process table: the test's child is
// there with the right parent and name, once with a filter and once in
// the full list sorted by pid.
func TestListOwnChild(t *testing.T) {
	exe, name := helperCopy(t)
	child := startHelper(t, exe, "sleep")
	pid := child.Process.Pid
	res, err := call(t.Context(), t, agentproto.CtlProcessList, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	ps := res.(agentproto.ProcessListResult).Processes
	if len(ps) != 1 {
		t.Fatalf("filter %q gave %+v, want the child only", name, ps)
	}
	p := ps[0]
	if p.PID != pid || p.PPID != os.Getpid() || !strings.EqualFold(p.Name, name) {
		t.Fatalf("child %+v, want pid %d ppid %d name %s", p, pid, os.Getpid(), name)
	}
	if !sameFile(p.Exe, exe) {
		t.Errorf("exe %q, want %q", p.Exe, exe)
	}
	if runtime.GOOS == "linux" && (p.RSSBytes == 0 || p.MemPct <= 0 || time.Since(p.StartedAt) > time.Minute) {
		t.Errorf("figures missing: %+v", p)
	}
	all, err := call(t.Context(), t, agentproto.CtlProcessList, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	list := all.(agentproto.ProcessListResult).Processes
	if !slices.IsSortedFunc(list, func(a, b agentproto.ProcessInfo) int { return a.PID - b.PID }) {
		t.Error("the list is not sorted by pid")
	}
	if !slices.ContainsFunc(list, func(q agentproto.ProcessInfo) bool { return q.PID == pid && q.PPID == os.Getpid() }) {
		t.Error("the full list lacks the child")
	}
}

// sameFile compares two paths of one file as the platform does.
func sameFile(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(filepath.Clean(a), filepath.Clean(b))
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
