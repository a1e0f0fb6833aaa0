package fileops

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"hostgate/internal/agentproto"
)

// unzip is ZIP_2_DIR: path is the archive on the host, data the target
// directory. Unpacking runs in three steps so that a refused or broken
// archive changes nothing:
//
//  1. plan: every entry is checked (names, types, sizes, counts) and the
//     target is checked for files in the way, before anything is written;
//  2. stage: the files are written into a fresh hidden directory inside
//     the target, through an os.Root so that no write can leave it, while
//     the bytes written are counted against MaxUnzipBytes;
//  3. commit: directories are created and staged files renamed into
//     place, through an os.Root on the target, so a symbolic link already
//     in the target cannot lead a write outside it either.
func unzip(ctx context.Context, a agentproto.ControlArgs, path string) (any, error) {
	s, err := agentproto.DataString(a.Data)
	if err != nil {
		return nil, err
	}
	dir, err := absPath("data", s)
	if err != nil {
		return nil, err
	}
	zr, err := openZip(path)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	plan, err := planZip(&zr.Reader, defaultUnzipLimits)
	if err != nil {
		return nil, err
	}
	return extract(ctx, plan, dir)
}

// openZip opens the archive. Names archive/zip itself finds insecure are
// not an error here: planZip refuses them with a clearer message.
func openZip(path string) (*zip.ReadCloser, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, osErr(err, path)
	}
	if fi.IsDir() {
		return nil, fail(CodeIsADirectory, "%s is a directory, not a zip archive", path)
	}
	zr, err := zip.OpenReader(path)
	if errors.Is(err, zip.ErrInsecurePath) && zr != nil {
		err = nil
	}
	if errors.Is(err, zip.ErrFormat) {
		return nil, fail(agentproto.CodeFailed, "%s is not a zip archive: %v", path, err)
	}
	if err != nil {
		return nil, osErr(err, path)
	}
	return zr, nil
}

// extract carries out steps 2 and 3 of a checked plan into dir. If it
// fails before the commit, the target is as it was (a target directory it
// created is removed again).
func extract(ctx context.Context, plan *zipPlan, dir string) (any, error) {
	undo, err := mkdirParents(dir)
	if err != nil {
		return nil, osErr(err, dir)
	}
	res, err := extractInto(ctx, plan, dir)
	if err != nil && !errors.As(err, new(*commitError)) {
		undo()
	}
	if err != nil {
		return nil, osErr(err, dir)
	}
	return res, nil
}

// extractInto stages and commits into the existing directory dir.
func extractInto(ctx context.Context, plan *zipPlan, dir string) (agentproto.UnzipResult, error) {
	res := agentproto.UnzipResult{Dir: dir, Files: len(plan.files)}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return res, err
	}
	defer root.Close()
	if err := checkTarget(root, plan, dir); err != nil {
		return res, err
	}
	st, err := newStage(root)
	if err != nil {
		return res, err
	}
	defer st.remove()
	if res.Bytes, err = st.fill(ctx, plan, dir); err != nil {
		return res, err
	}
	return res, st.commit(plan)
}

// checkTarget refuses, before anything is written, a plan that would
// have to replace a directory with a file or put a directory where a file
// is.
func checkTarget(root *os.Root, plan *zipPlan, dir string) error {
	for _, d := range plan.allDirs() {
		fi, err := root.Stat(filepath.FromSlash(d))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return osErr(err, filepath.Join(dir, filepath.FromSlash(d)))
		}
		if !fi.IsDir() {
			return fail(CodeNotADirectory, "the archive needs the directory %s, but a file is there; nothing was unpacked", filepath.Join(dir, filepath.FromSlash(d)))
		}
	}
	for _, f := range plan.files {
		fi, err := root.Lstat(filepath.FromSlash(f.rel))
		if err == nil && fi.IsDir() {
			return fail(CodeIsADirectory, "the archive would replace the directory %s with a file; nothing was unpacked", filepath.Join(dir, filepath.FromSlash(f.rel)))
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return osErr(err, filepath.Join(dir, filepath.FromSlash(f.rel)))
		}
	}
	return nil
}

// commitError is a failure while moving staged files into place: some
// files may already be there.
type commitError struct {
	done, total int
	err         error
}

func (e *commitError) Error() string {
	return fmt.Sprintf("unpacking stopped part-way (%d of %d files in place): %v", e.done, e.total, e.err)
}

func (e *commitError) Unwrap() error { return e.err }
