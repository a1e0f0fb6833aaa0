package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"hostgate/internal/store/postgres"
	"hostgate/internal/store/sqlite"
)

// FileName is the SQLite database's name inside the data directory.
const FileName = "hostgate.db"

// Open opens the store and brings its schema up to date: PostgreSQL for a
// postgres:// or postgresql:// databaseURL, an SQLite file in dataDir for
// an empty one: the directory is made or restricted to 0700 and the
// database files to 0600. Any other URL is an error.
// log (nil for none) hears of modes Open had to tighten.
func Open(ctx context.Context, databaseURL, dataDir string, log *slog.Logger) (Store, error) {
	switch {
	case isPostgres(databaseURL):
		db, err := postgres.Open(ctx, databaseURL)
		if err != nil {
			return Store{}, err
		}
		return New(db), nil
	case databaseURL == "":
		return openSQLite(ctx, dataDir, log)
	default:
		return Store{}, errors.New("store: database URL must start with postgres:// or postgresql:// (or be empty for SQLite)")
	}
}

// Migrate brings the store's schema up to date and closes it, for the
// migrate subcommand. Open migrates too; this is the same without serving.
func Migrate(ctx context.Context, databaseURL, dataDir string, log *slog.Logger) error {
	s, err := Open(ctx, databaseURL, dataDir, log)
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return fmt.Errorf("store: close after migrating: %w", err)
	}
	return nil
}

// isPostgres reports whether url names a PostgreSQL database. The scheme
// is matched in lower case only, as pgx parses it: any other spelling is
// refused here with a clear error rather than misread by the driver.
func isPostgres(url string) bool {
	return strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://")
}

func openSQLite(ctx context.Context, dataDir string, log *slog.Logger) (Store, error) {
	if dataDir == "" {
		return Store{}, errors.New("store: no database URL and no data directory for SQLite")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := prepareDataDir(dataDir, log); err != nil {
		return Store{}, err
	}
	db, err := sqlite.Open(ctx, filepath.Join(dataDir, FileName))
	if err != nil {
		return Store{}, err
	}
	// Opening made the WAL and its index (migrating reads and writes);
	// check what SQLite created, in case it ever stops copying the mode.
	if err := restrictFiles(dataDir, log); err != nil {
		return Store{}, errors.Join(err, db.Close())
	}
	return New(db), nil
}

// ErrBackupPostgres is Backup's answer for a PostgreSQL database, whose
// own tools make the backup.
var ErrBackupPostgres = errors.New("the database is PostgreSQL: back it up with pg_dump -Fc (docs/operations-guide.md), not hostgate backup")

// Backup writes a consistent copy of the embedded SQLite database in
// dataDir to dest (which must not exist; it is made with mode 0600) while
// a hub may be serving from it. It neither creates nor migrates the
// database. For a PostgreSQL databaseURL it returns ErrBackupPostgres.
func Backup(ctx context.Context, databaseURL, dataDir, dest string) error {
	switch {
	case isPostgres(databaseURL):
		return ErrBackupPostgres
	case databaseURL != "":
		return errors.New("store: database URL must start with postgres:// or postgresql:// (or be empty for SQLite)")
	case dataDir == "":
		return errors.New("store: no database URL and no data directory for SQLite")
	}
	return sqlite.Backup(ctx, filepath.Join(dataDir, FileName), dest)
}
