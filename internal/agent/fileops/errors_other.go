//go:build !windows

package fileops

import (
	"errors"
	"syscall"
)

// isNotDirErr: a path component that should be a directory is a file.
func isNotDirErr(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// isDirErr: a file operation met a directory.
func isDirErr(err error) bool { return errors.Is(err, syscall.EISDIR) }
