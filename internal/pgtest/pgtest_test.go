package pgtest_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"hostgate/internal/pgtest"
)

// TestNewDatabase checks that the database exists, is empty, and is
// dropped when the test that asked for it ends, even with a connection
// still open.
func TestNewDatabase(t *testing.T) {
	var dbURL string
	var leftover *pgx.Conn
	t.Run("inner", func(t *testing.T) {
		dbURL = pgtest.NewDatabase(t)
		conn, err := pgx.Connect(t.Context(), dbURL)
		if err != nil {
			t.Fatalf("connect to the new database: %v", err)
		}
		leftover = conn // left open on purpose: the drop must force it
		var tables int
		err = conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables)
		if err != nil || tables != 0 {
			t.Errorf("tables in the new database: got %d (%v), want 0", tables, err)
		}
	})
	if t.Failed() || leftover == nil {
		return // skipped or failed inside
	}
	t.Cleanup(func() { _ = leftover.Close(context.Background()) })
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	conn, err := pgx.Connect(t.Context(), u.String())
	if err != nil {
		t.Fatalf("connect to the server: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	var n int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("database %s after its test ended: still exists, want dropped", name)
	}
}
