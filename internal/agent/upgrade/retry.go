package upgrade

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// rename is os.Rename, retried for a moment where it may fail only
// because another process has one of the files open (see retry).
func rename(from, to string) error {
	return retry(func() error { return os.Rename(from, to) })
}

// remove is os.Remove, retried like rename.
func remove(path string) error {
	return retry(func() error { return os.Remove(path) })
}

// retry runs op up to retryAttempts times. On Windows a file cannot be
// replaced or deleted while another process reads it without sharing
// delete access, as antivirus scanners do with a new executable, and
// that passes. Elsewhere, and for a missing file, an error is final.
func retry(op func() error) error {
	err := op()
	for i := 1; err != nil && !errors.Is(err, fs.ErrNotExist) && i < retryAttempts; i++ {
		time.Sleep(retryPause)
		err = op()
	}
	return err
}

// retryPause is the wait between attempts of retry.
const retryPause = 50 * time.Millisecond
