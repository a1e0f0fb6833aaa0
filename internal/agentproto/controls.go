package agentproto

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Controls values: the spec's sixteen legacy bit flags, then the newer
// operations at fixed values inside the spec's ranges (1<<16…1<<20 shell
// sessions, 1<<24…1<<28 system, 1<<30 settings update). The process list
// has no value in the spec; it takes 1<<21, the first free bit of the
// newer range. Each has one row in Controls, which says everything else
// about it.
const (
	CtlDirMk                int64 = 1
	CtlDirRm                int64 = 2
	CtlFileMk               int64 = 4
	CtlFileRm               int64 = 8
	CtlStrAd                int64 = 16
	CtlStrRd                int64 = 32
	CtlStrRm                int64 = 64
	CtlZipToDir             int64 = 128
	CtlDownFile             int64 = 256
	CtlUploadFile           int64 = 512
	CtlExecProgram          int64 = 1024
	CtlChangeWatchDir       int64 = 2048
	CtlKillProcess          int64 = 4096
	CtlExecShell            int64 = 8192
	CtlOrchestratedStart    int64 = 16384
	CtlOrchestratedShutdown int64 = 32768

	CtlShellOpen   int64 = 1 << 16
	CtlShellWrite  int64 = 1 << 17
	CtlShellRead   int64 = 1 << 18
	CtlShellResize int64 = 1 << 19
	CtlShellClose  int64 = 1 << 20
	CtlProcessList int64 = 1 << 21

	CtlSystemInfo       int64 = 1 << 24
	CtlSystemMetrics    int64 = 1 << 25
	CtlServiceCtl       int64 = 1 << 26
	CtlRegistryRW       int64 = 1 << 27
	CtlScheduledTaskCtl int64 = 1 << 28

	CtlSettingsUpdate int64 = 1 << 30
)

// Carriage is how the client API carries out a control.
type Carriage uint8

// Carriages.
const (
	// ByValue: the hub sends the row's op for the value, from its route
	// (Route) or from controls/raw and /gateway, charged by Rule and
	// waited for by Timeout.
	ByValue Carriage = iota
	// OwnRoute: the operation has routes of its own (shell sessions,
	// settings), which charge Rule; controls/raw carries its value to the
	// agent as OpRawControl, like a value outside the table.
	OwnRoute
	// NotImplemented: no agent carries it out (UPLOAD_FILE); the hub and
	// the agent answer CodeNotImplemented (NotImplementedError) before any
	// charge, as its route (Route) does.
	NotImplemented
)

// Platform is where an agent carries out a control.
type Platform uint8

// Platforms.
const (
	// AnyOS: every agent.
	AnyOS Platform = iota
	// WindowsOnly: elsewhere a valid request answers
	// CodeUnsupportedOS (UnsupportedPlatform).
	WindowsOnly
)

// Control is one operation, in one row: everything the hub, the agent,
// the OpenAPI document and the SDKs know about it. Adding a control is
// adding a row (and the agent's handler for its op); the tests that read
// this table (TestEveryRowIsComplete here, the operations, billing,
// OpenAPI and SDK parity tests) find what else is missing.
type Control struct {
	// Value is the controls value.
	Value int64
	// Name is the spec's legacy-style name (x-known-names in the OpenAPI
	// document).
	Name string
	// Op is the op name a Command carries on the agent channel.
	Op string
	// Const is the SDKs' constant name: as it is in Go (sdk/go) and
	// TypeScript (sdk/typescript, a key of controls), CTL_ and upper
	// snake case in Python (sdk/python; CtlZipToDir is CTL_ZIP_TO_DIR).
	Const string
	// Carry is how the client API carries it out.
	Carry Carriage
	// Route is the client API route below /v1/api/hosts/{id}/ that sends
	// it; "" when only controls/raw and /gateway do. A NotImplemented
	// row's route answers not_implemented.
	Route string
	// Rule is the pricing rule code its call is charged by (billing's
	// Rule constants; internal/billing checks they agree); "" for none.
	Rule string
	// OS is where an agent carries it out.
	OS Platform
	// Args checks the path and data the way the agent reads them, so
	// that the hub refuses bad input before it charges or sends anything
	// (ValidateArgs); nil takes any (an OwnRoute operation's routes check
	// their own input).
	Args func(ControlArgs) error
	// Wait is how long the hub waits for the agent's answer, from the
	// args (validated before); nil is DefaultWait. See Timeout.
	Wait func(ControlArgs) time.Duration
}

// Timeout is how long the hub waits for the agent to answer c with args
// a: Wait's, or DefaultWait.
func (c Control) Timeout(a ControlArgs) time.Duration {
	if c.Wait == nil {
		return DefaultWait
	}
	return c.Wait(a)
}

// Controls lists every operation, in value order: one row per control.
var Controls = []Control{
	{Value: CtlDirMk, Name: "DIR_MK", Op: "files.dir_mk", Const: "CtlDirMk",
		Route: "files/dir", Rule: "control.dir.per_call", Args: pathOnly},
	{Value: CtlDirRm, Name: "DIR_RM", Op: "files.dir_rm", Const: "CtlDirRm",
		Route: "files/dir", Rule: "control.dir.per_call", Args: pathOnly},
	{Value: CtlFileMk, Name: "FILE_MK", Op: "files.file_mk", Const: "CtlFileMk",
		Route: "files/text", Rule: "control.file_write.per_call", Args: stringData(false)},
	{Value: CtlFileRm, Name: "FILE_RM", Op: "files.file_rm", Const: "CtlFileRm",
		Route: "files/text", Rule: "control.file_write.per_call", Args: pathOnly},
	{Value: CtlStrAd, Name: "STR_AD", Op: "files.str_ad", Const: "CtlStrAd",
		Route: "files/text", Rule: "control.file_write.per_call", Args: stringData(false)},
	{Value: CtlStrRd, Name: "STR_RD", Op: "files.str_rd", Const: "CtlStrRd",
		Route: "files/text", Rule: "control.file_read.per_call", Args: pathOnly},
	{Value: CtlStrRm, Name: "STR_RM", Op: "files.str_rm", Const: "CtlStrRm",
		Route: "files/text", Rule: "control.file_write.per_call", Args: stringData(true)},
	// ZIP_2_DIR: path is the zip file, data the target directory.
	{Value: CtlZipToDir, Name: "ZIP_2_DIR", Op: "files.unzip", Const: "CtlZipToDir",
		Route: "files/zip", Rule: "control.zip.per_call", Args: stringData(true),
		Wait: fixedWait(UnzipWait)},
	{Value: CtlDownFile, Name: "DOWN_FILE", Op: "files.download", Const: "CtlDownFile",
		Route: "files/download", Rule: "control.download.per_call", Args: dataThenPath[DownloadData],
		Wait: dataWait[DownloadData](DefaultDownloadTimeoutS)},
	{Value: CtlUploadFile, Name: "UPLOAD_FILE", Op: "files.upload", Const: "CtlUploadFile",
		Carry: NotImplemented, Route: "files/upload"},
	{Value: CtlExecProgram, Name: "EXEC_PROGRAM", Op: "process.exec", Const: "CtlExecProgram",
		Route: "process/exec", Rule: "control.exec_program.per_call", Args: stringData(false)},
	// CHANGE_WATCH_DIR is priced as a directory operation; controls/raw
	// and /gateway only.
	{Value: CtlChangeWatchDir, Name: "CHANGE_WATCH_DIR", Op: "files.change_watch_dir", Const: "CtlChangeWatchDir",
		Rule: "control.dir.per_call", Args: watchDirArgs},
	{Value: CtlKillProcess, Name: "KILL_PROCESS", Op: "process.kill", Const: "CtlKillProcess",
		Route: "process/kill", Rule: "control.kill_process.per_call", Args: dataThenPath[KillData],
		Wait: dataWait[KillData](DefaultKillTimeoutS)},
	{Value: CtlExecShell, Name: "EXEC_SHELL", Op: "process.shell", Const: "CtlExecShell",
		Route: "process/shell", Rule: "control.exec_shell.per_call", Args: dataThenPath[ShellData],
		Wait: dataWait[ShellData](DefaultShellTimeoutS)},
	// The orchestration routes take base_path as the path and the body as
	// the data (docs/orchestration.md).
	{Value: CtlOrchestratedStart, Name: "ORCHESTRATED_START", Op: "orchestrate.start", Const: "CtlOrchestratedStart",
		Route: "orchestrate/start", Rule: "control.orchestrate.per_call", Args: dataWithPath[OrchestrateStartData],
		Wait: orchestrateStartWait},
	{Value: CtlOrchestratedShutdown, Name: "ORCHESTRATED_SHUTDOWN", Op: "orchestrate.shutdown", Const: "CtlOrchestratedShutdown",
		Route: "orchestrate/shutdown", Rule: "control.orchestrate.per_call", Args: dataWithPath[OrchestrateShutdownData],
		Wait: orchestrateShutdownWait},
	// Shell sessions: the shell/session routes and the terminal.
	{Value: CtlShellOpen, Name: "SHELL_OPEN", Op: "shell.open", Const: "CtlShellOpen",
		Carry: OwnRoute, Rule: "control.shell_session.per_op"},
	{Value: CtlShellWrite, Name: "SHELL_WRITE", Op: "shell.write", Const: "CtlShellWrite",
		Carry: OwnRoute, Rule: "control.shell_session.per_op"},
	{Value: CtlShellRead, Name: "SHELL_READ", Op: "shell.read", Const: "CtlShellRead",
		Carry: OwnRoute, Rule: "control.shell_session.per_op"},
	{Value: CtlShellResize, Name: "SHELL_RESIZE", Op: "shell.resize", Const: "CtlShellResize",
		Carry: OwnRoute, Rule: "control.shell_session.per_op"},
	{Value: CtlShellClose, Name: "SHELL_CLOSE", Op: "shell.close", Const: "CtlShellClose",
		Carry: OwnRoute, Rule: "control.shell_session.per_op"},
	// PROCESS_LIST: path is an optional name filter.
	{Value: CtlProcessList, Name: "PROCESS_LIST", Op: "process.list", Const: "CtlProcessList",
		Route: "process/list", Rule: "control.process_list.per_call", Args: anyArgs},
	{Value: CtlSystemInfo, Name: "SYSTEM_INFO", Op: "system.info", Const: "CtlSystemInfo",
		Route: "system/info", Rule: "control.system_info.per_call", Args: anyArgs},
	{Value: CtlSystemMetrics, Name: "SYSTEM_METRICS", Op: "system.metrics", Const: "CtlSystemMetrics",
		Route: "system/metrics", Rule: "control.system_metrics.per_call", Args: anyArgs},
	{Value: CtlServiceCtl, Name: "SERVICE_CTL", Op: "system.service", Const: "CtlServiceCtl",
		Route: "service/ctl", Rule: "control.service.per_call", OS: WindowsOnly, Args: dataWithPath[ServiceData],
		Wait: dataWait[ServiceData](DefaultServiceTimeoutS)},
	{Value: CtlRegistryRW, Name: "REGISTRY_RW", Op: "system.registry", Const: "CtlRegistryRW",
		Route: "registry/rw", Rule: "control.registry.per_call", OS: WindowsOnly, Args: dataWithPath[RegistryData]},
	{Value: CtlScheduledTaskCtl, Name: "SCHEDULED_TASK_CTL", Op: "system.scheduled_task", Const: "CtlScheduledTaskCtl",
		Route: "scheduled-task/ctl", Rule: "control.scheduled_task.per_call", OS: WindowsOnly, Args: dataWithPath[TaskData]},
	// SETTINGS_UPDATE: PUT l1-config charges it and sends it.
	{Value: CtlSettingsUpdate, Name: "SETTINGS_UPDATE", Op: "settings.update", Const: "CtlSettingsUpdate",
		Carry: OwnRoute, Rule: "control.update_l1"},
}

// ControlByValue finds the operation with controls value v.
func ControlByValue(v int64) (Control, bool) {
	for _, c := range Controls {
		if c.Value == v {
			return c, true
		}
	}
	return Control{}, false
}

// ControlByOp finds the operation with op name op.
func ControlByOp(op string) (Control, bool) {
	for _, c := range Controls {
		if c.Op == op {
			return c, true
		}
	}
	return Control{}, false
}

// ControlArgs are the args of every controls operation on the agent
// channel: the client's path and data, as the client sent them (data is a
// string or an object, by operation).
type ControlArgs struct {
	Path string          `json:"path,omitempty"`
	Data json.RawMessage `json:"data,omitempty"`
}

// ArgsError is an *Error with CodeBadArgs.
func ArgsError(format string, a ...any) *Error {
	return &Error{Code: CodeBadArgs, Message: fmt.Sprintf(format, a...)}
}

// UnsupportedPlatform is the error of a Windows-only operation elsewhere.
func UnsupportedPlatform(op, goos string) *Error {
	return &Error{Code: CodeUnsupportedOS, Message: op + " is available on Windows hosts only, not on " + goos}
}

// DecodeData parses a ControlArgs data field into v, refusing unknown
// fields; a missing data field leaves v at its zero value.
func DecodeData(data json.RawMessage, v any) error {
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return ArgsError("data: %v", err)
	}
	if dec.More() {
		return ArgsError("data: trailing content")
	}
	return nil
}

// OpRawControl carries a controls value the hub has no operation for
// (args RawControl): a value outside the table, or one whose operation has
// a route of its own and is not carried out by its value (the shell
// session values, SETTINGS_UPDATE). The agent carries it out when its own
// table has an operation for the value that it serves by value; otherwise
// it answers CodeUnsupportedControl naming the value. An agent older than
// this op answers CodeUnknownOp.
const OpRawControl = "control.raw"

// RawControl is the argument of OpRawControl: the client's controls value,
// path and data as sent.
type RawControl struct {
	Controls int64           `json:"controls"`
	Path     string          `json:"path,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
}

// NotImplementedError is the error of a NotImplemented control, from the
// hub and the agent alike: "UPLOAD_FILE (512) is not implemented, like
// files/upload".
func NotImplementedError(c Control) *Error {
	return &Error{Code: CodeNotImplemented, Message: fmt.Sprintf("%s (%d) is not implemented, like %s", c.Name, c.Value, c.Route)}
}

// UnsupportedControl is the error an agent answers for a controls value it
// does not carry out.
func UnsupportedControl(v int64) *Error {
	if c, ok := ControlByValue(v); ok {
		return &Error{Code: CodeUnsupportedControl, Message: fmt.Sprintf(
			"controls %d (%s) is not carried out by this agent as a raw control", v, c.Name)}
	}
	return &Error{Code: CodeUnsupportedControl, Message: fmt.Sprintf(
		"controls %d is not an operation this agent knows", v)}
}

// WatchDirResult is the result of CHANGE_WATCH_DIR (2048): the directory
// the agent now watches for the legacy reverse reports and the one it
// watched before ("" for none).
type WatchDirResult struct {
	Dir      string `json:"dir" doc:"The directory now watched (absolute, cleaned)"`
	Previous string `json:"previous" doc:"The directory watched before; empty when none was"`
}
