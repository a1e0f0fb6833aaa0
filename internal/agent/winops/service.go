package winops

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"hostgate/internal/agentproto"
)

// Service limits, from the service control manager's own rules.
const (
	maxServiceName    = 256  // characters of a service or display name
	maxServiceCmdLine = 8192 // characters of binary_path plus args
	defaultTimeoutS   = agentproto.DefaultServiceTimeoutS
)

// Service states, as SERVICE_STATUS.dwCurrentState numbers them.
const (
	stateStopped         uint32 = 1
	stateStartPending    uint32 = 2
	stateStopPending     uint32 = 3
	stateRunning         uint32 = 4
	stateContinuePending uint32 = 5
	statePausePending    uint32 = 6
	statePaused          uint32 = 7
)

// Start types, as QUERY_SERVICE_CONFIG.dwStartType numbers them.
const (
	startBoot     uint32 = 0
	startSystem   uint32 = 1
	startAuto     uint32 = 2
	startDemand   uint32 = 3
	startDisabled uint32 = 4
)

// serviceRequest is a validated SERVICE_CTL command.
type serviceRequest struct {
	name    string
	data    agentproto.ServiceData
	timeout time.Duration
}

func handleService(ctx context.Context, raw json.RawMessage) (any, error) {
	var d agentproto.ServiceData
	name, err := decodeArgs(agentproto.CtlServiceCtl, raw, &d)
	if err != nil {
		return nil, err
	}
	if err := checkServiceData(name, d); err != nil {
		return nil, err
	}
	timeout := time.Duration(d.TimeoutS) * time.Second
	if d.TimeoutS == 0 {
		timeout = defaultTimeoutS * time.Second
	}
	return serviceOp(ctx, serviceRequest{name: name, data: d, timeout: timeout})
}

// checkServiceData adds the service manager's naming rules to the
// contract's validation, so that they give invalid_args on every
// platform rather than an error from Windows.
func checkServiceData(name string, d agentproto.ServiceData) error {
	if d.Action == agentproto.ServiceList {
		return nil
	}
	if utf8.RuneCountInString(name) > maxServiceName || strings.ContainsAny(name, `/\`) || hasControlChar(name) {
		return agentproto.ArgsError("path must be a service name: at most %d characters, no / or \\", maxServiceName)
	}
	if d.Action != agentproto.ServiceCreate {
		return nil
	}
	if utf8.RuneCountInString(d.DisplayName) > maxServiceName || hasControlChar(d.DisplayName) {
		return agentproto.ArgsError("display_name must be at most %d characters", maxServiceName)
	}
	if !isWindowsAbsPath(d.BinaryPath) || strings.Contains(d.BinaryPath, `"`) || hasControlChar(d.BinaryPath) {
		return agentproto.ArgsError(`binary_path must be an absolute Windows path (C:\..., \\server\..., or %%VAR%%\...) without quotes`)
	}
	if strings.ContainsRune(d.Args, 0) || strings.ContainsRune(d.Description, 0) {
		return agentproto.ArgsError("args and description must not contain NUL")
	}
	if utf8.RuneCountInString(serviceCommandLine(d.BinaryPath, d.Args)) > maxServiceCmdLine {
		return agentproto.ArgsError("binary_path and args must be at most %d characters", maxServiceCmdLine)
	}
	return nil
}

// isWindowsAbsPath accepts a drive path (C:\x), a UNC path (\\host\share)
// or a path starting with an environment variable (%SystemRoot%\x),
// which the service manager expands because it stores ImagePath as
// REG_EXPAND_SZ.
func isWindowsAbsPath(p string) bool {
	switch {
	case len(p) >= 3 && isASCIILetter(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/'):
		return true
	case strings.HasPrefix(p, `\\`) && len(p) > 2:
		return true
	case strings.HasPrefix(p, "%"):
		end := strings.Index(p[1:], "%")
		return end > 0 && len(p) > end+2 && (p[end+2] == '\\' || p[end+2] == '/')
	}
	return false
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// serviceCommandLine is the ImagePath the service manager runs: the
// executable, quoted when it holds blanks (binary_path has no quotes),
// then args as given.
func serviceCommandLine(binary, args string) string {
	line := binary
	if strings.ContainsAny(binary, " \t") {
		// Backslashes before the closing quote are doubled, as
		// CommandLineToArgvW reads them.
		n := len(binary) - len(strings.TrimRight(binary, `\`))
		line = `"` + binary + strings.Repeat(`\`, n) + `"`
	}
	if args = strings.TrimSpace(args); args != "" {
		line += " " + args
	}
	return line
}

// stateName names a SERVICE_STATUS state for the result.
func stateName(s uint32) string {
	switch s {
	case stateStopped:
		return "stopped"
	case stateStartPending:
		return "start_pending"
	case stateStopPending:
		return "stop_pending"
	case stateRunning:
		return "running"
	case stateContinuePending:
		return "continue_pending"
	case statePausePending:
		return "pause_pending"
	case statePaused:
		return "paused"
	}
	return "unknown"
}

// startTypeName names a start type; delayed marks an automatic service
// started after the others (the DelayedAutostart setting).
func startTypeName(t uint32, delayed bool) string {
	switch t {
	case startBoot:
		return "boot"
	case startSystem:
		return "system"
	case startAuto:
		if delayed {
			return "delayed_auto"
		}
		return "auto"
	case startDemand:
		return "manual"
	case startDisabled:
		return "disabled"
	}
	return "unknown"
}

// startTypeValue is the start type and delayed flag of a contract name
// (one of agentproto.ServiceStartTypes, already validated; "" is manual).
func startTypeValue(name string) (uint32, bool) {
	switch name {
	case "auto":
		return startAuto, false
	case "delayed_auto":
		return startAuto, true
	case "disabled":
		return startDisabled, false
	}
	return startDemand, false
}
