//go:build unix

package fileops

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// isMountPoint reports whether the directory path (whose Lstat is fi) is
// the root of a mounted filesystem: its device differs from its parent's.
// Bind mounts of a directory of the same filesystem are not detected.
func isMountPoint(path string, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	pfi, err := os.Lstat(filepath.Dir(path))
	if err != nil {
		return false
	}
	pst, ok := pfi.Sys().(*syscall.Stat_t)
	return ok && pst.Dev != st.Dev
}
