package fileops

import (
	"errors"
	"syscall"
)

// errDirectory is ERROR_DIRECTORY ("The directory name is invalid"),
// what Windows answers when a directory operation names a file.
const errDirectory syscall.Errno = 267

// isNotDirErr: a path component that should be a directory is a file.
// Windows mostly reports that as ERROR_PATH_NOT_FOUND (not_found);
// ERROR_DIRECTORY is the case it tells apart.
func isNotDirErr(err error) bool {
	return errors.Is(err, errDirectory) || errors.Is(err, syscall.ENOTDIR)
}

// isDirErr: a file operation met a directory. Windows answers that with
// ERROR_ACCESS_DENIED, so the handlers check with Stat beforehand; Go's
// own EISDIR is kept for the few places it is synthesised.
func isDirErr(err error) bool { return errors.Is(err, syscall.EISDIR) }
