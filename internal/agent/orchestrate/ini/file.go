package ini

import (
	"fmt"
	"os"
	"path/filepath"
)

// Read parses the file at path; a missing file reads as an empty one.
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return &File{}, nil
	}
	if err != nil {
		return nil, err
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Update merges sets into the file at path (Merge) and, when a value
// changed, writes it back atomically: a temporary file in the same
// directory, synced, given the old file's mode, renamed over it. A file
// that is not GBK is refused and left untouched; a missing one is
// created (mode 0644). It returns the keys changed.
func Update(path string, sets []Set) ([]string, error) {
	src, err := os.ReadFile(path)
	mode := os.FileMode(0o644)
	switch {
	case os.IsNotExist(err):
		src = nil
	case err != nil:
		return nil, err
	default:
		if st, err := os.Stat(path); err == nil {
			mode = st.Mode().Perm()
		}
	}
	out, changed, err := Merge(src, sets)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(changed) == 0 {
		return changed, nil
	}
	if err := writeAtomic(path, out, mode); err != nil {
		return nil, err
	}
	return changed, nil
}

func writeAtomic(path string, b []byte, mode os.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(b); err != nil {
		return err
	}
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename durable where the platform allows it (a
// directory cannot be opened for sync on Windows; the error is ignored).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
