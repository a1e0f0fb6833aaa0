package fileops

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"hostgate/internal/agentproto"
)

// fileMk is FILE_MK: create or replace the file with data, atomically.
// Missing parent directories are created (and removed again if the write
// fails).
func fileMk(_ context.Context, a agentproto.ControlArgs, path string) (any, error) {
	data, err := agentproto.DataString(a.Data)
	if err != nil {
		return nil, err
	}
	target, old, err := writableTarget(path)
	if err != nil {
		return nil, err
	}
	undo, err := mkdirParents(filepath.Dir(target))
	if err != nil {
		return nil, osErr(err, path)
	}
	n, err := writeAtomic(target, old, func(w io.Writer) error {
		_, err := io.WriteString(w, data)
		return err
	})
	if err != nil {
		undo()
		return nil, osErr(err, path)
	}
	return agentproto.FileResult{Path: path, Changed: true, Bytes: n}, nil
}

// writableTarget resolves path for a replacing write (see resolveTarget)
// and refuses a directory or a special file there.
func writableTarget(path string) (string, fs.FileInfo, error) {
	target, old, err := resolveTarget(path)
	if err != nil {
		return "", nil, osErr(err, path)
	}
	if old != nil && old.IsDir() {
		return "", nil, fail(CodeIsADirectory, "%s is a directory", path)
	}
	if old != nil && !old.Mode().IsRegular() {
		return "", nil, fail(agentproto.CodeFailed, "%s is not a regular file (%v)", path, old.Mode().Type())
	}
	return target, old, nil
}

// fileRm is FILE_RM: remove a file (a symbolic link is removed itself, not
// its target).
func fileRm(_ context.Context, _ agentproto.ControlArgs, path string) (any, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return agentproto.FileResult{Path: path}, nil
	}
	if err != nil {
		return nil, osErr(err, path)
	}
	if fi.IsDir() {
		return nil, fail(CodeIsADirectory, "%s is a directory; use DIR_RM", path)
	}
	if err := os.Remove(path); err != nil {
		return nil, osErr(err, path)
	}
	return agentproto.FileResult{Path: path, Changed: true}, nil
}

// strAd is STR_AD: append data to the file, creating the file (not its
// directory) when missing. Appending is not atomic: it is one write at the
// end of the file, fsynced.
func strAd(_ context.Context, a agentproto.ControlArgs, path string) (any, error) {
	data, err := agentproto.DataString(a.Data)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	existed := err == nil
	switch {
	case existed && fi.IsDir():
		return nil, fail(CodeIsADirectory, "%s is a directory", path)
	case existed && !fi.Mode().IsRegular():
		return nil, fail(agentproto.CodeFailed, "%s is not a regular file (%v)", path, fi.Mode().Type())
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, osErr(err, path)
	}
	size, err := appendFile(path, data)
	if err != nil {
		return nil, osErr(err, path)
	}
	return agentproto.FileResult{Path: path, Changed: !existed || data != "", Bytes: size}, nil
}

// appendFile appends data to path and returns the size afterwards.
func appendFile(path, data string) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, newFileMode)
	if err != nil {
		return 0, err
	}
	_, err = io.WriteString(f, data)
	if err == nil {
		err = f.Sync()
	}
	var st fs.FileInfo
	if err == nil {
		st, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
