package storetest

import (
	"context"
	"database/sql"
	"io/fs"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pressly/goose/v3"

	"hostgate/internal/store/sqldb"
)

// MigrationBackfillsHostCounts checks migration 0013 on an empty database
// db of one engine: migrated to 0012 with hosts in place (migrations holds
// the engine's migrations/*.sql), then brought up to date by migrate,
// host_counts starts with each user's undeleted hosts, and its triggers
// follow later inserts and deletes. Both engines run it.
func MigrationBackfillsHostCounts(t *testing.T, db *sql.DB, dialect goose.Dialect, migrations fs.FS,
	migrate func(context.Context, *sql.DB) ([]string, error)) {
	ctx := t.Context()
	before := fstest.MapFS{}
	files, _ := fs.Glob(migrations, "migrations/*.sql")
	for _, f := range files {
		if name := path.Base(f); name < "0013" {
			b, _ := fs.ReadFile(migrations, f)
			before[name] = &fstest.MapFile{Data: b}
		}
	}
	if _, err := sqldb.Migrate(ctx, db, dialect, before); err != nil {
		t.Fatalf("migrate to 0012: %v", err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", strings.Fields(q)[0], err)
		}
	}
	exec(`INSERT INTO users (id, email, display_name, status, password_hash, created_at) VALUES
		('ann', 'ann@x', 'ann', 'active', 'x', '2026-01-01T00:00:00Z'),
		('bob', 'bob@x', 'bob', 'active', 'x', '2026-01-01T00:00:00Z'),
		('cy', 'cy@x', 'cy', 'active', 'x', '2026-01-01T00:00:00Z')`)
	host := `INSERT INTO hosts (id, user_id, name, bid, listen_port, status, created_at, deleted_at, secret_sealed)
		VALUES ($1, $2, 'h', $3, 23456, 'pending', '2026-01-01T00:00:00Z', $4, $5)`
	sealed := []byte{0}
	exec(host, "a1", "ann", 1, nil, sealed)
	exec(host, "a2", "ann", 2, nil, sealed)
	exec(host, "a3", "ann", 3, "2026-01-02T00:00:00Z", sealed)
	exec(host, "c1", "cy", 4, "2026-01-02T00:00:00Z", sealed)
	if _, err := migrate(ctx, db); err != nil {
		t.Fatalf("migrate to 0013: %v", err)
	}
	want := func(when string, counts map[string]int) {
		t.Helper()
		for user, n := range counts {
			var got int
			err := db.QueryRowContext(ctx, `SELECT coalesce(max(n), 0) FROM host_counts WHERE user_id = $1`, user).Scan(&got)
			if err != nil || got != n {
				t.Errorf("%s: host_counts of %s = %d (err %v), want %d", when, user, got, err, n)
			}
		}
	}
	want("after the backfill", map[string]int{"ann": 2, "bob": 0, "cy": 0})
	exec(host, "b1", "bob", 5, nil, sealed)
	exec(`UPDATE hosts SET deleted_at = '2026-01-03T00:00:00Z' WHERE id IN ('a1', 'a3')`)
	exec(`UPDATE hosts SET name = 'renamed' WHERE id = 'a2'`)
	want("after an insert and deletes", map[string]int{"ann": 1, "bob": 1, "cy": 0})
}
