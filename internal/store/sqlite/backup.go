package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
)

// Backup writes a consistent copy of the database at path to dest with
// VACUUM INTO, while other connections (a serving hub) go on reading and
// writing. It neither migrates nor creates the database: a path that does
// not exist is an error. dest must not exist; it is created with mode 0600
// before SQLite fills it, so the copy (which holds the server keys) is
// never readable by others, not even for a moment. On failure dest is
// removed.
func Backup(ctx context.Context, path, dest string) (err error) {
	path, err = filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("sqlite: backup: no database at %s: %w", path, err)
	}
	dest, err = filepath.Abs(dest)
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	// O_EXCL refuses an existing file atomically; SQLite accepts an empty
	// file as the target of VACUUM INTO and keeps its mode.
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("sqlite: backup: %s already exists; choose a new file name", dest)
	}
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	if err := f.Close(); err != nil {
		return errors.Join(fmt.Errorf("sqlite: backup: %w", err), os.Remove(dest))
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, os.Remove(dest))
		}
	}()
	if runtime.GOOS != "windows" {
		// The umask may have narrowed 0600 further, never widened it;
		// set it exactly so the restore steps can rely on it.
		if err := os.Chmod(dest, 0o600); err != nil {
			return fmt.Errorf("sqlite: backup: %w", err)
		}
	}
	db, err := sql.Open("sqlite", dsn(path, backupParams()))
	if err != nil {
		return fmt.Errorf("sqlite: backup: open %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dest); err != nil {
		return fmt.Errorf("sqlite: backup of %s: %w", path, err)
	}
	return nil
}

// backupParams configure the backup's connection: it only reads (VACUUM
// INTO writes the other file), but _query_only would refuse the statement.
// The busy timeout covers a checkpoint of the serving hub.
func backupParams() url.Values {
	return url.Values{"_pragma": {"busy_timeout(5000)", "foreign_keys(1)"}}
}
