// Package postgres opens the hub's store in a PostgreSQL database, through
// pgx's database/sql driver: the engine for production and for several hub
// instances sharing one database.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"hostgate/internal/store/sqldb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Pool limits. The hub's queries are short, so a modest pool serves many
// requests, and several hub instances still fit under PostgreSQL's default
// max_connections of 100. Connections are recycled so that the pool
// follows failovers and DNS changes and does not hold idle server memory.
const (
	maxOpen     = 20
	maxIdle     = 10
	maxLifetime = 30 * time.Minute
	maxIdleTime = 5 * time.Minute
)

// uniqueViolation is SQLSTATE unique_violation.
const uniqueViolation = "23505"

var dialect = sqldb.Dialect{Name: "postgres", IsUniqueViolation: isUniqueViolation, RowLocks: true}

// Open connects to the database at url (postgres://…), applies the
// migrations it lacks, and returns the store.
func Open(ctx context.Context, url string) (*sqldb.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse database URL: %w", err)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(maxIdle)
	db.SetConnMaxLifetime(maxLifetime)
	db.SetConnMaxIdleTime(maxIdleTime)
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("postgres: connect: %w", err), db.Close())
	}
	if _, err := Migrate(ctx, db); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return sqldb.New(dialect, db, db), nil
}

// Migrate applies the embedded migrations that db lacks and returns the
// names of those it applied. An advisory lock serialises hub instances
// that start together, so each migration runs once.
func Migrate(ctx context.Context, db *sql.DB) ([]string, error) {
	fsys, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("postgres: migrations: %w", err)
	}
	// Poll the lock every second for up to five minutes.
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
	if err != nil {
		return nil, fmt.Errorf("postgres: migration lock: %w", err)
	}
	return sqldb.Migrate(ctx, db, goose.DialectPostgres, fsys, goose.WithSessionLocker(locker))
}

// isUniqueViolation reports SQLSTATE 23505.
func isUniqueViolation(err error) bool {
	e, ok := errors.AsType[*pgconn.PgError](err)
	return ok && e.Code == uniqueViolation
}
