package store_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hostgate/internal/pgtest"
	"hostgate/internal/store"
)

func TestOpenSelectsEngine(t *testing.T) {
	for _, c := range []struct {
		name string
		url  func(t *testing.T) string
		want string // engine name, or "" for an error
	}{
		{"empty is SQLite", literal(""), "sqlite"},
		{"postgres://", withScheme("postgres"), "postgres"},
		{"postgresql://", withScheme("postgresql"), "postgres"},
		{"scheme in upper case", literal("POSTGRES://postgres@127.0.0.1/db"), ""},
		{"mysql", literal("mysql://root@localhost/db"), ""},
		{"sqlite URL", literal("sqlite:///tmp/x.db"), ""},
		{"no scheme", literal("hostgate.db"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := store.Open(t.Context(), c.url(t), t.TempDir(), nil)
			if c.want == "" {
				if err == nil {
					s.Close()
					t.Fatalf("Open: got engine %s, want an error", s.Name())
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			t.Cleanup(func() { _ = s.Close() })
			if got := s.Name(); got != c.want {
				t.Errorf("Name: got %q, want %q", got, c.want)
			}
		})
	}
}

func literal(url string) func(*testing.T) string {
	return func(*testing.T) string { return url }
}

// withScheme gives a fresh test database's URL with the scheme replaced.
func withScheme(scheme string) func(*testing.T) string {
	return func(t *testing.T) string {
		_, rest, _ := strings.Cut(pgtest.NewDatabase(t), "://")
		return scheme + "://" + rest
	}
}

func TestOpenCreatesDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nested", "data")
	s, err := store.Open(t.Context(), "", dir, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatalf("data directory: %v", err)
	}
	if perm := info.Mode().Perm(); perm != 0o700 {
		t.Errorf("data directory mode: got %o, want 700", perm)
	}
	if _, err := os.Stat(filepath.Join(dir, store.FileName)); err != nil {
		t.Errorf("database file: %v", err)
	}
}

func TestOpenNeedsDataDir(t *testing.T) {
	if s, err := store.Open(t.Context(), "", "", nil); err == nil {
		s.Close()
		t.Error("Open with no URL and no data directory: got nil error")
	}
}

func TestMigrate(t *testing.T) {
	dir := t.TempDir()
	for i := range 2 { // the second run finds nothing to do
		if err := store.Migrate(t.Context(), "", dir, nil); err != nil {
			t.Fatalf("Migrate run %d: %v", i+1, err)
		}
	}
}

// TestMigrationNamesMatch checks that both engines have the same
// migrations, so that a schema change is never made for one engine only.
func TestMigrationNamesMatch(t *testing.T) {
	pg, lite := migrationNames(t, "postgres"), migrationNames(t, "sqlite")
	if !slices.Equal(pg, lite) {
		t.Errorf("migrations: postgres has %v, sqlite has %v; want the same names", pg, lite)
	}
	if len(pg) == 0 {
		t.Error("migrations: got none, want at least 0001_accounts.sql")
	}
}

func migrationNames(t *testing.T, engine string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(engine, "migrations", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		files[i] = filepath.Base(f)
	}
	return files
}
