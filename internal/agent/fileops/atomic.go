package fileops

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// newFileMode is the mode of a file these operations create (before the
// platform's rules: on Windows only the read-only bit means anything).
const newFileMode fs.FileMode = 0o644

// dirMode is the mode of directories these operations create; the umask
// applies.
const dirMode fs.FileMode = 0o755

// writeAtomic replaces path with what fill writes. fill writes to a
// temporary file in path's directory, which is then given the mode (and on
// Unix the owner) of old, the file being replaced (nil: a new file gets
// newFileMode), fsynced and renamed over path. On any error, fill's
// included, the temporary file is removed and path is left as it was. It
// returns the size written.
func writeAtomic(path string, old fs.FileInfo, fill func(io.Writer) error) (int64, error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".hostgate-*.tmp")
	if err != nil {
		return 0, err
	}
	tmp := f.Name()
	n, err := fillAndSync(f, old, fill)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return 0, err
	}
	syncDir(dir)
	return n, nil
}

// fillAndSync writes the temporary file, sets its metadata and flushes it
// to disk, so the rename that follows never exposes an empty file after a
// crash.
func fillAndSync(f *os.File, old fs.FileInfo, fill func(io.Writer) error) (int64, error) {
	if err := fill(f); err != nil {
		return 0, err
	}
	if err := keepMeta(f, old); err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// resolveTarget is the file a write to path should replace: path itself,
// or for a symbolic link the file it points to, so that replacing a
// linked configuration file keeps the link. info is nil when nothing is
// there yet; a dangling link is an error (not_found) rather than silently
// turned into a regular file.
func resolveTarget(path string) (string, fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return path, fi, nil
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", nil, err
	}
	fi, err = os.Stat(real)
	if err != nil {
		return "", nil, err
	}
	return real, fi, nil
}

// mkdirParents creates dir and its missing parents. undo removes the
// directories it created, deepest first, as long as they are still empty,
// for a failure after which nothing should be left behind.
func mkdirParents(dir string) (undo func(), err error) {
	first := firstMissing(dir)
	if first == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return nil, err
	}
	return func() {
		for d := dir; ; d = filepath.Dir(d) {
			if os.Remove(d) != nil || d == first {
				return
			}
		}
	}, nil
}

// firstMissing is the top-most directory of dir's chain that does not
// exist, or "" when dir exists (or cannot be examined: MkdirAll will say
// why).
func firstMissing(dir string) string {
	missing := ""
	for d := dir; ; {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			return missing
		}
		missing = d
		parent := filepath.Dir(d)
		if parent == d {
			return missing
		}
		d = parent
	}
}
