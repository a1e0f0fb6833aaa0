package agentproto

import "time"

// How long the hub waits for the agent to answer a control (Control.Wait):
// each row's wait derives from its args and the agent's own defaults,
// which are the constants of this package the agent uses too.
const (
	// DefaultWait is for quick operations (a row without Wait).
	DefaultWait = 30 * time.Second
	// WaitSlack covers the transport around an operation's own limit.
	WaitSlack = 15 * time.Second
	// UnzipWait bounds unpacking an archive (ZIP_2_DIR).
	UnzipWait = 10 * time.Minute
)

// fixedWait waits d whatever the args.
func fixedWait(d time.Duration) func(ControlArgs) time.Duration {
	return func(ControlArgs) time.Duration { return d }
}

// timedData is a data object with a timeout of its own, in seconds (0 for
// the agent's default).
type timedData interface{ waitS() int }

// dataWait waits for the data's own timeout (T.waitS), or def seconds
// when it names none, plus WaitSlack. The data was validated before; data
// that does not decode waits def.
func dataWait[T timedData](def int) func(ControlArgs) time.Duration {
	return func(a ControlArgs) time.Duration {
		var d T
		_ = DecodeData(a.Data, &d)
		s := d.waitS()
		if s <= 0 {
			s = def
		}
		return time.Duration(s)*time.Second + WaitSlack
	}
}

func (d DownloadData) waitS() int { return d.TimeoutS }
func (d ShellData) waitS() int    { return d.TimeoutS }
func (d KillData) waitS() int     { return d.TimeoutS }

// waitS of a restart is a stop, then a start, each up to timeout_s.
func (d ServiceData) waitS() int {
	if d.Action == ServiceRestart && d.TimeoutS > 0 {
		return 2 * d.TimeoutS
	}
	return d.TimeoutS
}

// orchestrateStartWait covers the default family's start: the delay
// before each of its children (its fixed children and run_gate_count
// RunGates). A larger orchestrate.json family needs a shorter
// spawn_delay_ms (docs/orchestration.md).
func orchestrateStartWait(a ControlArgs) time.Duration {
	var d OrchestrateStartData
	_ = DecodeData(a.Data, &d)
	children := DefaultFamilyChildren(d.RunGates())
	return DefaultWait + time.Duration(d.SpawnDelay()*children)*time.Millisecond
}

// orchestrateShutdownWait covers the default family's shutdown at its
// largest (MaxRunGateCount RunGates), each child taking its whole stage-2
// wait, the close wait and the settling after the kill, then the
// controller's settling.
func orchestrateShutdownWait(a ControlArgs) time.Duration {
	var d OrchestrateShutdownData
	_ = DecodeData(a.Data, &d)
	children := time.Duration(DefaultFamilyChildren(MaxRunGateCount))
	if t := d.TimeoutOverrideS; t != nil {
		return children*(2*time.Duration(*t)*time.Second+OrchestrateSettle) + OrchestrateSettle + WaitSlack
	}
	var stage2 time.Duration
	for _, c := range DefaultFamily {
		stage2 += time.Duration(c.count(MaxRunGateCount)) * KindWaits[c.Kind]
	}
	return stage2 + children*(OrchestrateCloseWait+OrchestrateSettle) + OrchestrateSettle + WaitSlack
}
