package fileops

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// stage is the hidden directory inside the target that an archive is
// unpacked into before its files are moved into place.
type stage struct {
	root *os.Root // the target directory
	name string   // the stage's name inside root
	dir  *os.Root // the stage itself
}

// newStage creates a stage with a random name inside root.
func newStage(root *os.Root) (*stage, error) {
	for range 5 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		name := ".hostgate-unzip-" + hex.EncodeToString(b[:])
		err := root.Mkdir(name, 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		dir, err := root.OpenRoot(name)
		if err != nil {
			_ = root.Remove(name)
			return nil, err
		}
		return &stage{root: root, name: name, dir: dir}, nil
	}
	return nil, errors.New("could not create a staging directory with a fresh name")
}

// remove deletes the stage and whatever is left in it.
func (s *stage) remove() {
	_ = s.dir.Close()
	_ = s.root.RemoveAll(s.name)
}

// fill writes every file of plan into the stage and returns the bytes
// written, refusing to write more than plan.maxBytes in all whatever the
// archive's headers claim.
func (s *stage) fill(ctx context.Context, plan *zipPlan, dir string) (int64, error) {
	var total int64
	for _, pf := range plan.files {
		if err := ctx.Err(); err != nil {
			return total, fmt.Errorf("unpacking cancelled: %w", err)
		}
		n, err := s.write(ctx, pf, plan.maxBytes-total)
		total += n
		if errors.Is(err, errBudget) {
			return total, tooLargeToUnpack(plan.maxBytes)
		}
		if err != nil {
			return total, fmt.Errorf("entry %q into %s: %w", pf.f.Name, dir, err)
		}
	}
	return total, nil
}

// write unpacks one entry, writing at most budget bytes.
func (s *stage) write(ctx context.Context, pf planFile, budget int64) (int64, error) {
	rel := filepath.FromSlash(pf.rel)
	if parent := path.Dir(pf.rel); parent != "." {
		if err := s.dir.MkdirAll(filepath.FromSlash(parent), dirMode); err != nil {
			return 0, err
		}
	}
	rc, err := pf.f.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	out, err := s.dir.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, filePerm(pf.f.Mode()))
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, ctxReader{ctx, io.LimitReader(rc, budget+1)})
	if err == nil && n > budget {
		err = errBudget
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && !pf.f.Modified.IsZero() {
		_ = s.dir.Chtimes(rel, pf.f.Modified, pf.f.Modified)
	}
	return n, err
}

// commit creates the archive's directories in the target and moves the
// staged files into place, replacing files of the same name.
func (s *stage) commit(plan *zipPlan) error {
	for _, d := range plan.dirs {
		if err := s.root.MkdirAll(filepath.FromSlash(d.rel), d.perm); err != nil {
			return &commitError{0, len(plan.files), err}
		}
	}
	for i, pf := range plan.files {
		rel := filepath.FromSlash(pf.rel)
		err := s.root.MkdirAll(filepath.Dir(rel), dirMode)
		if err == nil {
			err = s.root.Rename(filepath.Join(s.name, rel), rel)
		}
		if err != nil {
			return &commitError{i, len(plan.files), err}
		}
	}
	return nil
}

// errBudget: an entry was cut off at the byte limit of the archive.
var errBudget = errors.New("byte limit reached")

// ctxReader stops a copy when ctx ends (the command's deadline).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
