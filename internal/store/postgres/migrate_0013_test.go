package postgres_test

import (
	"database/sql"
	"testing"

	"github.com/pressly/goose/v3"

	"hostgate/internal/pgtest"
	"hostgate/internal/store/postgres"
	"hostgate/internal/store/storetest"
)

func TestMigration0013BackfillsHostCounts(t *testing.T) {
	db, err := sql.Open("pgx", pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.MigrationBackfillsHostCounts(t, db, goose.DialectPostgres, postgres.MigrationFiles, postgres.Migrate)
}
