package procops

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/shirou/gopsutil/v4/mem"
	"github.com/shirou/gopsutil/v4/process"

	"hostgate/internal/agentproto"
)

// cpuSample is how long PROCESS_LIST measures CPU use over: a figure of
// the moment, as a task manager shows, not the average since the process
// started.
const cpuSample = 500 * time.Millisecond

// processStats reads the figures of one process. Each method reports
// false, or leaves fields empty, for what it may not read (another
// user's process) or for a process that has ended.
type processStats interface {
	// cpuSeconds is the CPU time the process has used, user and system.
	cpuSeconds(ctx context.Context, pid int) (float64, bool)
	// details fills User, RSSBytes and StartedAt.
	details(ctx context.Context, pid int, info *agentproto.ProcessInfo)
	// memTotal is the machine's memory in bytes (0 if unknown).
	memTotal(ctx context.Context) uint64
}

// lister carries out PROCESS_LIST.
type lister struct {
	snapshot func() ([]procEntry, error)
	stats    processStats
	sample   time.Duration
	windows  bool
}

var systemLister = lister{snapshot: snapshot, stats: gopsutilStats{}, sample: cpuSample, windows: runtime.GOOS == "windows"}

// listProcesses is PROCESS_LIST; path, when given, keeps the processes it
// names (matched as by KILL_PROCESS).
func listProcesses(ctx context.Context, a agentproto.ControlArgs) (any, error) {
	return systemLister.list(ctx, a.Path)
}

// list reads the process table, measures CPU use over l.sample and
// returns the processes sorted by pid. One process that cannot be read
// only loses its fields.
func (l lister) list(ctx context.Context, filter string) (agentproto.ProcessListResult, error) {
	procs, err := l.snapshot()
	if err != nil {
		return agentproto.ProcessListResult{}, fail(agentproto.CodeFailed, "reading the process table: %v", err)
	}
	if filter != "" {
		m := newMatcher(filter, l.windows)
		procs = slices.DeleteFunc(procs, func(p procEntry) bool { return !m.matches(p.Name, p.Exe) })
	}
	slices.SortFunc(procs, func(a, b procEntry) int { return cmp.Compare(a.PID, b.PID) })
	before := make([]float64, len(procs))
	seen := make([]bool, len(procs))
	for i, p := range procs {
		before[i], seen[i] = l.stats.cpuSeconds(ctx, p.PID)
	}
	start := time.Now()
	if err := sleepCtx(ctx, l.sample); err != nil {
		return agentproto.ProcessListResult{}, fail(agentproto.CodeFailed, "cancelled: %v", err)
	}
	elapsed := time.Since(start).Seconds()
	total := l.stats.memTotal(ctx)
	out := make([]agentproto.ProcessInfo, 0, len(procs))
	for i, p := range procs {
		info := agentproto.ProcessInfo{PID: p.PID, PPID: p.PPID, Name: p.Name, Exe: p.Exe}
		l.stats.details(ctx, p.PID, &info)
		if after, ok := l.stats.cpuSeconds(ctx, p.PID); ok && seen[i] && elapsed > 0 {
			info.CPUPct = round(math.Max(after-before[i], 0)/elapsed*100, 1)
		}
		if total > 0 {
			info.MemPct = round(float64(info.RSSBytes)/float64(total)*100, 2)
		}
		out = append(out, info)
	}
	return agentproto.ProcessListResult{Processes: out}, nil
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// round rounds x to n decimals.
func round(x float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(x*p) / p
}

// gopsutilStats reads process figures through gopsutil.
type gopsutilStats struct{}

func (gopsutilStats) cpuSeconds(ctx context.Context, pid int) (float64, bool) {
	t, err := (&process.Process{Pid: int32(pid)}).TimesWithContext(ctx)
	if err != nil || t == nil {
		return 0, false
	}
	return t.User + t.System, true
}

func (gopsutilStats) details(ctx context.Context, pid int, info *agentproto.ProcessInfo) {
	p := &process.Process{Pid: int32(pid)}
	if u, err := p.UsernameWithContext(ctx); err == nil {
		info.User = u
	}
	if m, err := p.MemoryInfoWithContext(ctx); err == nil && m != nil {
		info.RSSBytes = m.RSS
	}
	if ms, err := p.CreateTimeWithContext(ctx); err == nil && ms > 0 {
		info.StartedAt = time.UnixMilli(ms).UTC()
	}
}

func (gopsutilStats) memTotal(ctx context.Context) uint64 {
	vm, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil || vm == nil {
		return 0
	}
	return vm.Total
}
