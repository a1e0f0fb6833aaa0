// Package pgtest gives tests a fresh, empty PostgreSQL database of their
// own on a shared server, and drops it when the test ends.
package pgtest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// EnvURL names the variable holding the server's admin URL; DefaultURL is
// used when it is unset.
const (
	EnvURL     = "HOSTGATE_TEST_DATABASE_URL"
	DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
)

// timeout bounds each administrative statement, connecting included.
const timeout = 30 * time.Second

// NewDatabase creates a database with a random name on the server at
// $HOSTGATE_TEST_DATABASE_URL (a postgres:// URL) and returns its URL. The
// database is dropped at t.Cleanup, its remaining connections closed by
// force. When the server cannot be reached the test is skipped, or fails
// when $CI is "true", so that CI never passes by skipping.
func NewDatabase(t testing.TB) string {
	t.Helper()
	admin := serverURL()
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("pgtest: parse $%s: %v", EnvURL, err)
	}
	if err := probe(); err != nil {
		unreachable(t, u, err)
	}
	name := "hostgate_test_" + strings.ToLower(rand.Text()) // lower case: needs no quoting
	if err := exec(admin, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create test database: %v", err)
	}
	t.Cleanup(func() {
		if err := exec(admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop test database: %v", err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// probe connects to the server once per test binary, so that a package of
// tests without a server skips quickly instead of each test waiting out a
// connection timeout. A server that answers with an error (bad password,
// say) counts as reachable: the test then fails on its real error.
var probe = sync.OnceValue(func() error {
	err := exec(serverURL(), "SELECT 1")
	if _, answered := errors.AsType[*pgconn.PgError](err); answered {
		return nil
	}
	return err
})

func serverURL() string {
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	return DefaultURL
}

// exec runs one statement on a connection of its own to the server.
func exec(admin, stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.Background()) }()
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", stmt, err)
	}
	return nil
}

// unreachable skips the test, or fails it on CI.
func unreachable(t testing.TB, server *url.URL, err error) {
	t.Helper()
	msg := fmt.Sprintf("pgtest: PostgreSQL at %s (set $%s): %v", server.Redacted(), EnvURL, err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip("skipping: " + msg)
}
