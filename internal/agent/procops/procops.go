// Package procops carries out the agent's process operations: EXEC_PROGRAM
// (op "process.exec", start a program and leave it running), EXEC_SHELL
// ("process.shell", run a command and capture its output), KILL_PROCESS
// ("process.kill", soft then hard kill by executable name) and
// PROCESS_LIST ("process.list").
//
// Every handler decodes its arguments and validates them exactly as the
// hub does (agentproto.ValidateArgs). The operating system parts (how a
// program is started detached, how a process tree is killed, how the
// process table is read, how a process is asked to exit) sit in small
// build-tagged files behind the types of this file and kill.go, so the
// logic above them is tested on Linux and, where Wine can, on Windows.
// The user documentation is docs/operations/processes.md.
package procops

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"

	"hostgate/internal/agentproto"
)

// Error codes of this package, besides agentproto's invalid_args and
// failed. The hub passes them through (internal/operations FailureCodes),
// not_found as target_not_found.
const (
	// CodeNotFound: the program to start does not exist (not on PATH, or
	// no such file).
	CodeNotFound = "not_found"
	// CodePermissionDenied: the operating system refused to start the
	// program or to kill a process.
	CodePermissionDenied = "permission_denied"
)

// Handler is an agent operation handler.
type Handler = agentproto.Handler

// Handlers returns the operations of this package keyed by op name.
func Handlers() map[string]Handler {
	return agentproto.ControlHandlers(map[int64]agentproto.ControlFunc{
		agentproto.CtlExecProgram: execProgram,
		agentproto.CtlExecShell:   execShell,
		agentproto.CtlKillProcess: killProcess,
		agentproto.CtlProcessList: listProcesses,
	})
}

// fail is an *agentproto.Error with code and a formatted message.
func fail(code, format string, a ...any) *agentproto.Error {
	return &agentproto.Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// checkProgram refuses a program path the agent cannot interpret for the
// caller: one with a NUL byte, or a relative path with a directory part
// (relative to the service's working directory, which means nothing to
// the caller). A bare name is looked up in PATH.
func checkProgram(p string) error {
	if strings.IndexByte(p, 0) >= 0 {
		return agentproto.ArgsError("path must not contain a NUL byte")
	}
	if filepath.IsAbs(p) {
		return nil
	}
	if strings.ContainsAny(p, pathSeparators) || filepath.VolumeName(p) != "" {
		return agentproto.ArgsError("path must be an absolute path or a program name looked up in PATH, got %q", p)
	}
	return nil
}

// startError turns a failure to find or start program into an
// *agentproto.Error whose code says what went wrong.
func startError(program string, err error) error {
	var ae *agentproto.Error
	if errors.As(err, &ae) {
		return ae
	}
	msg := err.Error()
	if !strings.Contains(msg, program) {
		msg = program + ": " + msg
	}
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return fail(CodeNotFound, "%s", msg)
	case errors.Is(err, fs.ErrPermission):
		return fail(CodePermissionDenied, "%s", msg)
	}
	return fail(agentproto.CodeFailed, "%s", msg)
}
