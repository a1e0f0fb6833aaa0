package fileops

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"hostgate/internal/agentproto"
)

// dirMk is DIR_MK: create the directory and its parents.
func dirMk(_ context.Context, _ agentproto.ControlArgs, path string) (any, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return agentproto.FileResult{Path: path}, nil
	case err == nil:
		return nil, fail(CodeNotADirectory, "%s exists and is not a directory", path)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, osErr(err, path)
	}
	if err := os.MkdirAll(path, dirMode); err != nil {
		return nil, osErr(err, path)
	}
	return agentproto.FileResult{Path: path, Changed: true}, nil
}

// dirRm is DIR_RM: remove the directory tree. A volume root or mount
// point is refused, whatever the caller's rights: no legitimate request
// wipes a whole filesystem through this operation.
func dirRm(_ context.Context, _ agentproto.ControlArgs, path string) (any, error) {
	if isVolumeRoot(path) {
		return nil, agentproto.ArgsError("refusing to remove %s: it is a filesystem root", path)
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return agentproto.FileResult{Path: path}, nil
	}
	if err != nil {
		return nil, osErr(err, path)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fail(CodeNotADirectory, "%s is a symbolic link, not a directory", path)
	}
	if !fi.IsDir() {
		return nil, fail(CodeNotADirectory, "%s is not a directory", path)
	}
	if isMountPoint(path, fi) {
		return nil, agentproto.ArgsError("refusing to remove %s: it is the root of a mounted filesystem", path)
	}
	if err := os.RemoveAll(path); err != nil {
		return nil, osErr(err, path)
	}
	return agentproto.FileResult{Path: path, Changed: true}, nil
}

// isVolumeRoot reports whether the clean absolute path p is the root of
// its volume: "/", `C:\`, `\\server\share\`, `\\?\C:\`.
func isVolumeRoot(p string) bool {
	rest := p[len(filepath.VolumeName(p)):]
	return rest == "" || (len(rest) == 1 && os.IsPathSeparator(rest[0]))
}
