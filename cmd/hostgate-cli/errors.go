package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"runtime"

	hostgate "hostgate/sdk/go"
)

// usageError is a bad command line: exit 2 with the command's usage.
type usageError struct{ msg, usage string }

func (e *usageError) Error() string { return e.msg }

func usageErr(msg, usage string) error { return &usageError{msg, usage} }

// helpRequest is -h or --help after a command: its usage on stdout, exit 0.
type helpRequest struct{ usage string }

func (e *helpRequest) Error() string { return "help requested" }

// configError is missing or unreadable configuration: exit 2.
type configError struct{ msg string }

func (e *configError) Error() string { return e.msg }

// exitStatus ends the CLI with a status already reported (the remote
// program's, for shell and term).
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// remoteStatus maps a remote exit code to a local exit status: a code the
// local system cannot pass on (negative: killed; above 255 outside
// Windows) becomes 255.
func remoteStatus(code int) exitStatus {
	if code < 0 || (code > 255 && runtime.GOOS != "windows") {
		return 255
	}
	return exitStatus(code)
}

// fail reports err on stderr and returns the exit status it stands for.
func (a *app) fail(ctx context.Context, err error) int {
	if err == nil {
		return exitOK
	}
	if s, ok := errors.AsType[exitStatus](err); ok {
		return int(s)
	}
	if h, ok := errors.AsType[*helpRequest](err); ok {
		fmt.Fprintf(a.stdout, "usage: %s\n", h.usage)
		return exitOK
	}
	if u, ok := errors.AsType[*usageError](err); ok {
		fmt.Fprintf(a.stderr, "hostgate-cli: %s\n", u.msg)
		if u.usage != "" {
			fmt.Fprintf(a.stderr, "usage: %s\n", u.usage)
		}
		fmt.Fprintln(a.stderr, "Run 'hostgate-cli help' for usage.")
		return exitUsage
	}
	if c, ok := errors.AsType[*configError](err); ok {
		fmt.Fprintf(a.stderr, "hostgate-cli: %s\n", c.msg)
		return exitUsage
	}
	if ctx.Err() != nil {
		fmt.Fprintln(a.stderr, "hostgate-cli: interrupted")
		return exitInterrupted
	}
	if e, ok := errors.AsType[*hostgate.Error](err); ok {
		fmt.Fprintf(a.stderr, "hostgate-cli: %s (%d %s)\n", e.Message, e.Status, e.Code)
		a.errorJSON(e.Status, e.Code, e.Message)
		return exitFailed
	}
	fmt.Fprintf(a.stderr, "hostgate-cli: %v\n", err)
	code := "cli_error"
	if _, ok := errors.AsType[*url.Error](err); ok {
		code = "request_failed"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		code = "timeout"
	}
	a.errorJSON(0, code, err.Error())
	return exitFailed
}

// errorJSON writes {status, error, message} to stderr under --json.
func (a *app) errorJSON(status int, code, msg string) {
	if !a.json {
		return
	}
	b, _ := json.Marshal(struct {
		Status  int    `json:"status"`
		Error   string `json:"error"`
		Message string `json:"message"`
	}{status, code, msg})
	fmt.Fprintf(a.stderr, "%s\n", b)
}
