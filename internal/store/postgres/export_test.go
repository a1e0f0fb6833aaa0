package postgres

// MigrationFiles are the embedded migrations, for tests that apply only
// some of them (storetest.MigrationBackfillsHostCounts).
var MigrationFiles = migrationFiles
