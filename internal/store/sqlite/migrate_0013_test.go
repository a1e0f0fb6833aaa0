package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/pressly/goose/v3"

	"hostgate/internal/store/sqlite"
	"hostgate/internal/store/storetest"
)

func TestMigration0013BackfillsHostCounts(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.MigrationBackfillsHostCounts(t, db, goose.DialectSQLite3, sqlite.MigrationFiles, sqlite.Migrate)
}
