// Package sqlite opens the hub's store in an SQLite file (pure Go, through
// modernc.org/sqlite): the embedded single-node default.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"hostgate/internal/store/sqldb"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// readers is the size of the read pool. Reads are short; a few
// connections let them run beside a write under WAL.
const readers = 4

// dialect is SQLite's: times as sqldb.TimeFormat text, because SQLite has
// no time type and the text form sorts and compares correctly.
var dialect = sqldb.Dialect{Name: "sqlite", IsUniqueViolation: isUniqueViolation, TextTimes: true, PrepareHot: true, FTS5: true}

// Open opens (creating if need be) the database file at path, applies the
// migrations it lacks, and returns the store.
//
// Writes go through a pool of exactly one connection, reads through a
// separate pool. SQLite allows one writer at a time; with several writing
// connections, a transaction that must wait does so in SQLite's busy
// handler and fails with SQLITE_BUSY after busy_timeout, and a deferred
// transaction that read before writing can fail at once, whatever the
// timeout. One writing connection makes writers queue in database/sql
// instead, where they wait for as long as their context allows, and WAL
// lets the readers proceed while one writes. _txlock=immediate still takes
// the write lock at BEGIN, so a second process on the same file (hostgate
// migrate) is waited for rather than deadlocked with.
func Open(ctx context.Context, path string) (*sqldb.DB, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	write, err := openPool(ctx, path, writeParams(), 1)
	if err != nil {
		return nil, err
	}
	if _, err := Migrate(ctx, write); err != nil {
		return nil, errors.Join(err, write.Close())
	}
	read, err := openPool(ctx, path, readParams(), readers)
	if err != nil {
		return nil, errors.Join(err, write.Close())
	}
	db, err := sqldb.New(ctx, dialect, write, read)
	if err != nil {
		return nil, errors.Join(err, write.Close(), read.Close())
	}
	return db, nil
}

// Migrate applies the embedded migrations that db lacks and returns the
// names of those it applied.
func Migrate(ctx context.Context, db *sql.DB) ([]string, error) {
	fsys, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("sqlite: migrations: %w", err)
	}
	return sqldb.Migrate(ctx, db, goose.DialectSQLite3, fsys)
}

// openPool opens a pool of at most size connections on path and checks
// that one connects (which applies the params' pragmas).
func openPool(ctx context.Context, path string, params url.Values, size int) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(path, params))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(size)
	db.SetMaxIdleConns(size)
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("sqlite: open %s: %w", path, err), db.Close())
	}
	return db, nil
}

// dsn is a file: URI for the absolute path, escaped so that '?', '#' or '%' in the path
// stay part of the file name.
func dsn(path string, params url.Values) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + params.Encode()
}

// writeParams configure the writing connection. WAL lets readers work
// during a write; synchronous=NORMAL is durable across process crashes in
// WAL mode and loses at most the last commits on power loss, for far fewer
// fsyncs. busy_timeout covers waits on another process. temp_store keeps
// statement journals in memory: a statement writing many rows (a batch of
// liveness or metrics) keeps one, to undo itself alone, and wrote it to a
// temporary file, a fifth of a metrics flush.
func writeParams() url.Values {
	return url.Values{
		"_pragma": {"busy_timeout(5000)", "journal_mode(WAL)", "foreign_keys(1)", "synchronous(NORMAL)", "temp_store(MEMORY)"},
		"_txlock": {"immediate"},
	}
}

// readParams configure the reading connections, made read-only so that a
// write sent to the wrong pool fails loudly instead of contending.
func readParams() url.Values {
	return url.Values{
		"_pragma":     {"busy_timeout(5000)", "foreign_keys(1)"},
		"_query_only": {"1"},
	}
}

// isUniqueViolation reports a UNIQUE or PRIMARY KEY constraint failure, by
// SQLite's extended result code.
func isUniqueViolation(err error) bool {
	e, ok := errors.AsType[*sqlite.Error](err)
	if !ok {
		return false
	}
	return e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}
