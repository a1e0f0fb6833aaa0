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
	neturl "net/url"
	"strconv"
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
// max_connections of 100; more instances than five share that budget by
// setting pool_max_conns in the URL. Connections are recycled so that the
// pool follows failovers and DNS changes and does not hold idle server
// memory.
const (
	defaultMaxOpen = 20
	maxPoolConns   = 1000
	maxIdle        = 10
	maxLifetime    = 30 * time.Minute
	maxIdleTime    = 5 * time.Minute
)

// uniqueViolation is SQLSTATE unique_violation.
const uniqueViolation = "23505"

var dialect = sqldb.Dialect{Name: "postgres", IsUniqueViolation: isUniqueViolation, RowLocks: true, WritingCTEs: true, ArrayParams: true}

// Open connects to the database at url (postgres://…), applies the
// migrations it lacks, and returns the store.
//
// The URL may carry pool_max_conns=N (1–1000, default 20), the pool size
// of this instance, as pgxpool spells it; it is not sent to the server.
func Open(ctx context.Context, url string) (*sqldb.DB, error) {
	url, maxOpen, err := poolSize(url)
	if err != nil {
		return nil, err
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse database URL: %w", err)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(min(maxIdle, maxOpen))
	db.SetConnMaxLifetime(maxLifetime)
	db.SetConnMaxIdleTime(maxIdleTime)
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(connectError(cfg, err), db.Close())
	}
	if _, err := Migrate(ctx, db); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	s, err := sqldb.New(ctx, dialect, db, db)
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return s, nil
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

// poolSize takes pool_max_conns out of a URL's query and returns the URL
// without it and the pool size it names (the default when absent).
func poolSize(raw string) (string, int, error) {
	u, err := neturl.Parse(raw)
	if err != nil {
		// Not err: it quotes the URL, password and all.
		return "", 0, errors.New("postgres: the database URL is not a valid URL (percent-encode special characters in the password)")
	}
	q := u.Query()
	v, ok := q["pool_max_conns"]
	if !ok {
		return raw, defaultMaxOpen, nil
	}
	n, err := strconv.Atoi(v[len(v)-1])
	if err != nil || n < 1 || n > maxPoolConns {
		return "", 0, fmt.Errorf("postgres: pool_max_conns must be a whole number from 1 to %d", maxPoolConns)
	}
	q.Del("pool_max_conns")
	u.RawQuery = q.Encode()
	return u.String(), n, nil
}

// isUniqueViolation reports SQLSTATE 23505.
func isUniqueViolation(err error) bool {
	e, ok := errors.AsType[*pgconn.PgError](err)
	return ok && e.Code == uniqueViolation
}
