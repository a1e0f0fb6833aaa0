package store

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
)

// Modes of the data directory and of every file the hub keeps in it. The
// database holds the token signing and sealing keys (unless they come from
// the environment), so nobody but the hub's own user may read it.
const (
	dirMode  fs.FileMode = 0o700
	fileMode fs.FileMode = 0o600
)

// dataFiles are the files of the SQLite database: the database itself,
// its write-ahead log and shared-memory index (made lazily by SQLite, with
// the database file's mode) and, should WAL ever be off, its rollback
// journal.
func dataFiles(dir string) []string {
	db := filepath.Join(dir, FileName)
	return []string{db, db + "-wal", db + "-shm", db + "-journal"}
}

// prepareDataDir creates dir (0700) and, before SQLite ever opens it, the
// database file (0600), so the WAL and index SQLite creates beside it take
// 0600 too, whatever the umask; it restricts whatever was there already.
func prepareDataDir(dir string, log *slog.Logger) error {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return fmt.Errorf("store: create data directory: %w", err)
	}
	if err := restrict(dir, dirMode, log); err != nil {
		return err
	}
	f, err := os.OpenFile(dataFiles(dir)[0], os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return fmt.Errorf("store: create database file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("store: create database file: %w", err)
	}
	return restrictFiles(dir, log)
}

// restrictFiles restricts each database file that exists to 0600.
func restrictFiles(dir string, log *slog.Logger) error {
	for _, p := range dataFiles(dir) {
		if err := restrict(p, fileMode, log); err != nil {
			return err
		}
	}
	return nil
}

// restrict sets path's permission bits to want when they differ, and logs
// the change; a missing path is left alone. A mode that cannot be set
// stops the hub rather than serve with its keys readable.
func restrict(path string, want fs.FileMode, log *slog.Logger) error {
	if !modesApply {
		return nil
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if fi.Mode().Perm() == want {
		return nil
	}
	if err := os.Chmod(path, want); err != nil {
		return fmt.Errorf("store: %s has mode %04o and cannot be restricted to %04o: %w", path, fi.Mode().Perm(), want, err)
	}
	log.Warn("store: restricted the mode of a data file", "path", path,
		"old_mode", fmt.Sprintf("%04o", fi.Mode().Perm()), "new_mode", fmt.Sprintf("%04o", want))
	return nil
}
