package operations

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/billing"
)

// spec is how the hub carries out one controls value: the pricing rule it
// is charged by and how long the hub waits for the agent.
type spec struct {
	rule    string
	timeout func(agentproto.ControlArgs) time.Duration
}

// RuleRawControl prices a controls/raw (or /gateway) call whose value
// names no operation the client API carries out (rawSpec). Migration 0003
// seeds no price for it, so such a call is not charged until an admin adds
// a rule for this code; with one, it is charged before the agent answers
// and not refunded when the agent refuses the value (spec 8, rule 1).
const RuleRawControl = "control.raw.per_call"

// rawSpec carries a value that has no spec to the agent as
// agentproto.OpRawControl; the agent carries it out if it can, else
// answers unsupported_control naming it.
var rawSpec = spec{RuleRawControl, fixed(defaultWait)}

// plan is what Run sends for controls value v with args a: the op, its
// args and the spec it is charged and waited for by.
func plan(v int64, a agentproto.ControlArgs) (op string, args json.RawMessage, sp spec, err error) {
	if sp, ok := specs[v]; ok {
		args, err = json.Marshal(a)
		return agentproto.OpName(v), args, sp, err
	}
	args, err = json.Marshal(agentproto.RawControl{Controls: v, Path: a.Path, Data: a.Data})
	return agentproto.OpRawControl, args, rawSpec, err
}

// Waits for the agent's answer.
const (
	// defaultWait is for quick operations.
	defaultWait = 30 * time.Second
	// slack covers the transport around an operation's own limit.
	slack = 15 * time.Second
	// unzipWait bounds unpacking an archive.
	unzipWait = 10 * time.Minute
)

func fixed(d time.Duration) func(agentproto.ControlArgs) time.Duration {
	return func(agentproto.ControlArgs) time.Duration { return d }
}

// dataLimit waits for the operation's own timeout_s (or its default) plus
// slack; the data was validated before.
func dataLimit(def int, read func(agentproto.ControlArgs) int) func(agentproto.ControlArgs) time.Duration {
	return func(a agentproto.ControlArgs) time.Duration {
		s := read(a)
		if s <= 0 {
			s = def
		}
		return time.Duration(s)*time.Second + slack
	}
}

func shellTimeout(a agentproto.ControlArgs) int {
	var d agentproto.ShellData
	_ = agentproto.DecodeData(a.Data, &d)
	return d.TimeoutS
}

func killTimeout(a agentproto.ControlArgs) int {
	var d agentproto.KillData
	_ = agentproto.DecodeData(a.Data, &d)
	return d.TimeoutS
}

func downloadTimeout(a agentproto.ControlArgs) int {
	var d agentproto.DownloadData
	_ = agentproto.DecodeData(a.Data, &d)
	return d.TimeoutS
}

func serviceTimeout(a agentproto.ControlArgs) int {
	var d agentproto.ServiceData
	_ = agentproto.DecodeData(a.Data, &d)
	if d.Action == agentproto.ServiceRestart && d.TimeoutS > 0 {
		return 2 * d.TimeoutS // a stop, then a start
	}
	return d.TimeoutS
}

// orchestrateStartWait covers the default family's start: the delay
// before each of its children (run_gate_count RunGates and six others).
// A larger orchestrate.json family needs a shorter spawn_delay_ms
// (docs/orchestration.md).
func orchestrateStartWait(a agentproto.ControlArgs) time.Duration {
	var d agentproto.OrchestrateStartData
	_ = agentproto.DecodeData(a.Data, &d)
	return defaultWait + time.Duration(d.SpawnDelay()*(6+d.RunGates()))*time.Millisecond
}

// orchestrateShutdownWait covers the default family's shutdown at its
// largest (22 children: 16 RunGates and six others), each child taking
// its whole stage-2 wait, the close wait and the settling after the kill.
func orchestrateShutdownWait(a agentproto.ControlArgs) time.Duration {
	var d agentproto.OrchestrateShutdownData
	_ = agentproto.DecodeData(a.Data, &d)
	const children, settle = 22, 5 * time.Second
	if t := d.TimeoutOverrideS; t != nil {
		return children*(2*time.Duration(*t)*time.Second+settle) + settle + slack
	}
	stage2 := (60 + 30 + 30 + 60 + 18*20) * time.Second
	return stage2 + children*(5*time.Second+settle) + settle + slack
}

// specs are the operations the client API carries out by controls value:
// those of its routes and CHANGE_WATCH_DIR (controls/raw and /gateway
// only). Shell sessions and settings have routes of their own and are not
// sent by their ops through Run; controls/raw carries their values, like
// any value without a spec, as agentproto.OpRawControl (rawSpec).
var specs = map[int64]spec{
	agentproto.CtlDirMk:    {billing.RuleDir, fixed(defaultWait)},
	agentproto.CtlDirRm:    {billing.RuleDir, fixed(defaultWait)},
	agentproto.CtlFileMk:   {billing.RuleFileWrite, fixed(defaultWait)},
	agentproto.CtlFileRm:   {billing.RuleFileWrite, fixed(defaultWait)},
	agentproto.CtlStrAd:    {billing.RuleFileWrite, fixed(defaultWait)},
	agentproto.CtlStrRd:    {billing.RuleFileRead, fixed(defaultWait)},
	agentproto.CtlStrRm:    {billing.RuleFileWrite, fixed(defaultWait)},
	agentproto.CtlZipToDir: {billing.RuleUnzip, fixed(unzipWait)},
	agentproto.CtlDownFile: {billing.RuleDownload,
		dataLimit(agentproto.DefaultDownloadTimeoutS, downloadTimeout)},
	agentproto.CtlExecProgram: {billing.RuleExecProgram, fixed(defaultWait)},
	// CHANGE_WATCH_DIR is priced as a directory operation.
	agentproto.CtlChangeWatchDir: {billing.RuleDir, fixed(defaultWait)},
	agentproto.CtlKillProcess: {billing.RuleKillProcess,
		dataLimit(agentproto.DefaultKillTimeoutS, killTimeout)},
	agentproto.CtlExecShell: {billing.RuleExecShell,
		dataLimit(agentproto.DefaultShellTimeoutS, shellTimeout)},
	agentproto.CtlProcessList:          {billing.RuleProcessList, fixed(defaultWait)},
	agentproto.CtlSystemInfo:           {billing.RuleSystemInfo, fixed(defaultWait)},
	agentproto.CtlSystemMetrics:        {billing.RuleSystemMetrics, fixed(defaultWait)},
	agentproto.CtlServiceCtl:           {billing.RuleService, dataLimit(30, serviceTimeout)},
	agentproto.CtlRegistryRW:           {billing.RuleRegistry, fixed(defaultWait)},
	agentproto.CtlScheduledTaskCtl:     {billing.RuleScheduledTask, fixed(defaultWait)},
	agentproto.CtlOrchestratedStart:    {billing.RuleOrchestrate, orchestrateStartWait},
	agentproto.CtlOrchestratedShutdown: {billing.RuleOrchestrate, orchestrateShutdownWait},
}

// RuleOf is the pricing rule of a controls value: its operation's, or
// RuleRawControl for a value without one.
func RuleOf(controls int64) string {
	if sp, ok := specs[controls]; ok {
		return sp.rule
	}
	return RuleRawControl
}

// RouteControls are the controls values each client API route takes.
var RouteControls = map[string][]int64{
	"files/dir":          {agentproto.CtlDirMk, agentproto.CtlDirRm},
	"files/text":         {agentproto.CtlFileMk, agentproto.CtlFileRm, agentproto.CtlStrAd, agentproto.CtlStrRd, agentproto.CtlStrRm},
	"files/zip":          {agentproto.CtlZipToDir},
	"files/download":     {agentproto.CtlDownFile},
	"process/exec":       {agentproto.CtlExecProgram},
	"process/shell":      {agentproto.CtlExecShell},
	"process/kill":       {agentproto.CtlKillProcess},
	"process/list":       {agentproto.CtlProcessList},
	"system/info":        {agentproto.CtlSystemInfo},
	"system/metrics":     {agentproto.CtlSystemMetrics},
	"service/ctl":        {agentproto.CtlServiceCtl},
	"registry/rw":        {agentproto.CtlRegistryRW},
	"scheduled-task/ctl": {agentproto.CtlScheduledTaskCtl},
	// The orchestration routes take base_path as the path and the body
	// as the data (docs/orchestration.md).
	"orchestrate/start":    {agentproto.CtlOrchestratedStart},
	"orchestrate/shutdown": {agentproto.CtlOrchestratedShutdown},
}

// controlsFor checks a body's controls value against its route. A route
// with one operation accepts an absent value (0) as that one.
func controlsFor(route string, v int64) (int64, error) {
	if route == "" {
		// controls/raw carries any positive value to the agent. 0 is
		// an absent value and a negative one is in no range of the spec.
		switch {
		case v <= 0:
			return 0, apperr.New(apperr.CodeInvalidBody, fmt.Sprintf("controls must be a positive integer, got %d", v))
		case v == agentproto.CtlUploadFile:
			// As its route, files/upload, answers (spec 4.5).
			return 0, apperr.New(CodeNotImplemented, "UPLOAD_FILE (512) is not implemented, like files/upload")
		}
		return v, nil
	}
	allowed := RouteControls[route]
	if v == 0 && len(allowed) == 1 {
		return allowed[0], nil
	}
	if !slices.Contains(allowed, v) {
		return 0, apperr.New(apperr.CodeInvalidBody, fmt.Sprintf("controls %d does not match %s; it takes %v", v, route, allowed))
	}
	return v, nil
}
