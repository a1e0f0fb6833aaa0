// Package winops carries out the agent's Windows-only operations: service
// control (SERVICE_CTL, op "system.service"), registry access (REGISTRY_RW,
// "system.registry") and scheduled tasks (SCHEDULED_TASK_CTL,
// "system.scheduled_task").
//
// Every handler first decodes and validates its arguments the same way on
// every platform, so a bad request gets "invalid_args" wherever it lands;
// only then does a non-Windows agent answer "unsupported_platform".
package winops

import (
	"encoding/json"
	"fmt"
	"strings"

	"hostgate/internal/agentproto"
)

// Error codes of this package, besides agentproto's invalid_args, failed
// and unsupported_platform.
const (
	// CodeNotFound: no such service, registry key or value, or task.
	CodeNotFound = "not_found"
	// CodePermissionDenied: Windows refused access.
	CodePermissionDenied = "permission_denied"
	// CodeServiceTimeout: a service did not reach the wanted state within
	// timeout_s.
	CodeServiceTimeout = "service_timeout"
	// CodeAlreadyExists: create of a service whose name is taken.
	CodeAlreadyExists = "already_exists"
	// CodeKeyNotEmpty: delete_key of a key with subkeys without recursive.
	CodeKeyNotEmpty = "key_not_empty"
	// CodeValueTooLarge: a registry value or listing exceeds the limits.
	CodeValueTooLarge = "value_too_large"
	// CodeTaskFailed: schtasks.exe reported an error.
	CodeTaskFailed = "task_failed"
)

// Handler is an agent operation handler.
type Handler = agentproto.Handler

// Handlers returns the operations of this package keyed by op name.
func Handlers() map[string]Handler {
	return map[string]Handler{
		agentproto.OpName(agentproto.CtlServiceCtl):       handleService,
		agentproto.OpName(agentproto.CtlRegistryRW):       handleRegistry,
		agentproto.OpName(agentproto.CtlScheduledTaskCtl): newTaskHandler(systemTasks()),
	}
}

// decodeArgs parses a command's args, validates them exactly as the hub
// does (agentproto.ValidateArgs), then decodes the data object into data.
// Numbers inside data stay json.Number, so that a registry qword keeps
// all 64 bits.
func decodeArgs(ctl int64, raw json.RawMessage, data any) (string, error) {
	a, err := agentproto.DecodeArgs(ctl, raw)
	if err != nil {
		return "", err
	}
	if len(a.Data) == 0 || string(a.Data) == "null" {
		return a.Path, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(a.Data)))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(data); err != nil {
		return "", agentproto.ArgsError("data: %v", err)
	}
	return a.Path, nil
}

// codeError is an *agentproto.Error with a code and a formatted message.
func codeError(code, format string, a ...any) *agentproto.Error {
	return &agentproto.Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// hasControlChar reports whether s holds a NUL or another C0 control
// character, which no Windows name accepts.
func hasControlChar(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
}
