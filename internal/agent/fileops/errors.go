package fileops

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"hostgate/internal/agentproto"
)

// fail is an *agentproto.Error with code and a formatted message.
func fail(code, format string, a ...any) *agentproto.Error {
	return &agentproto.Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// osErr turns an error of an operation on path into an *agentproto.Error
// whose code says what went wrong and whose message names the path. An
// *agentproto.Error passes through unchanged.
func osErr(err error, path string) error {
	if err == nil {
		return nil
	}
	var ae *agentproto.Error
	if errors.As(err, &ae) {
		return ae
	}
	msg := err.Error()
	if path != "" && !strings.Contains(msg, path) {
		msg = path + ": " + msg
	}
	return &agentproto.Error{Code: osCode(err), Message: msg}
}

// osCode classifies an operating system error.
func osCode(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return CodeNotFound
	case errors.Is(err, fs.ErrPermission):
		return CodePermissionDenied
	case isNotDirErr(err):
		return CodeNotADirectory
	case isDirErr(err):
		return CodeIsADirectory
	}
	return agentproto.CodeFailed
}
