package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"hostgate/internal/store/postgres"
	"hostgate/internal/store/sqldb"
	"hostgate/internal/store/sqlite"
)

var _ Store = (*sqldb.DB)(nil)

// FileName is the SQLite database's name inside the data directory.
const FileName = "hostgate.db"

// Open opens the store and brings its schema up to date: PostgreSQL for a
// postgres:// or postgresql:// databaseURL, an SQLite file in dataDir
// (created 0700 if missing) for an empty one. Any other URL is an error.
func Open(ctx context.Context, databaseURL, dataDir string) (Store, error) {
	switch {
	case isPostgres(databaseURL):
		db, err := postgres.Open(ctx, databaseURL)
		if err != nil {
			return nil, err
		}
		return db, nil
	case databaseURL == "":
		return openSQLite(ctx, dataDir)
	default:
		return nil, errors.New("store: database URL must start with postgres:// or postgresql:// (or be empty for SQLite)")
	}
}

// Migrate brings the store's schema up to date and closes it, for the
// migrate subcommand. Open migrates too; this is the same without serving.
func Migrate(ctx context.Context, databaseURL, dataDir string) error {
	s, err := Open(ctx, databaseURL, dataDir)
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

func openSQLite(ctx context.Context, dataDir string) (Store, error) {
	if dataDir == "" {
		return nil, errors.New("store: no database URL and no data directory for SQLite")
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("store: create data directory: %w", err)
	}
	db, err := sqlite.Open(ctx, filepath.Join(dataDir, FileName))
	if err != nil {
		return nil, err
	}
	return db, nil
}
