package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path"

	"github.com/pressly/goose/v3"
)

// Migrate applies the goose SQL migrations in fsys (NNNN_name.sql at its
// root) that db lacks, each in its own transaction, and returns the file
// names of those it applied, oldest first. Go migrations registered in
// goose's global registry are ignored: the schema is the files alone.
func Migrate(ctx context.Context, db *sql.DB, dialect goose.Dialect, fsys fs.FS, opts ...goose.ProviderOption) ([]string, error) {
	opts = append([]goose.ProviderOption{goose.WithDisableGlobalRegistry(true)}, opts...)
	p, err := goose.NewProvider(dialect, db, fsys, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: migrations: %w", dialect, err)
	}
	results, err := p.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: migrate: %w", dialect, err)
	}
	names := make([]string, 0, len(results))
	for _, r := range results {
		names = append(names, path.Base(r.Source.Path))
	}
	return names, nil
}
