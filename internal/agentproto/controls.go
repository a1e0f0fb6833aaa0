package agentproto

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Controls values: the spec's sixteen legacy bit flags, then the newer
// operations at fixed values inside the spec's ranges (1<<16…1<<20 shell
// sessions, 1<<24…1<<28 system, 1<<30 settings update). The process list
// has no value in the spec; it takes 1<<21, the first free bit of the
// newer range. The SDKs mirror this table (a test checks the Go one).
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

// Control is one operation: its controls value, its legacy-style name and
// the op name a Command carries on the agent channel.
type Control struct {
	Value int64
	Name  string
	Op    string
}

// Controls lists every operation, in value order.
var Controls = []Control{
	{CtlDirMk, "DIR_MK", "files.dir_mk"},
	{CtlDirRm, "DIR_RM", "files.dir_rm"},
	{CtlFileMk, "FILE_MK", "files.file_mk"},
	{CtlFileRm, "FILE_RM", "files.file_rm"},
	{CtlStrAd, "STR_AD", "files.str_ad"},
	{CtlStrRd, "STR_RD", "files.str_rd"},
	{CtlStrRm, "STR_RM", "files.str_rm"},
	{CtlZipToDir, "ZIP_2_DIR", "files.unzip"},
	{CtlDownFile, "DOWN_FILE", "files.download"},
	{CtlUploadFile, "UPLOAD_FILE", "files.upload"},
	{CtlExecProgram, "EXEC_PROGRAM", "process.exec"},
	{CtlChangeWatchDir, "CHANGE_WATCH_DIR", "files.change_watch_dir"},
	{CtlKillProcess, "KILL_PROCESS", "process.kill"},
	{CtlExecShell, "EXEC_SHELL", "process.shell"},
	{CtlOrchestratedStart, "ORCHESTRATED_START", "orchestrate.start"},
	{CtlOrchestratedShutdown, "ORCHESTRATED_SHUTDOWN", "orchestrate.shutdown"},
	{CtlShellOpen, "SHELL_OPEN", "shell.open"},
	{CtlShellWrite, "SHELL_WRITE", "shell.write"},
	{CtlShellRead, "SHELL_READ", "shell.read"},
	{CtlShellResize, "SHELL_RESIZE", "shell.resize"},
	{CtlShellClose, "SHELL_CLOSE", "shell.close"},
	{CtlProcessList, "PROCESS_LIST", "process.list"},
	{CtlSystemInfo, "SYSTEM_INFO", "system.info"},
	{CtlSystemMetrics, "SYSTEM_METRICS", "system.metrics"},
	{CtlServiceCtl, "SERVICE_CTL", "system.service"},
	{CtlRegistryRW, "REGISTRY_RW", "system.registry"},
	{CtlScheduledTaskCtl, "SCHEDULED_TASK_CTL", "system.scheduled_task"},
	{CtlSettingsUpdate, "SETTINGS_UPDATE", "settings.update"},
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
