package postgres_test

import (
	"database/sql"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"hostgate/internal/accounts"
	"hostgate/internal/pgtest"
	"hostgate/internal/store"
	"hostgate/internal/store/postgres"
	"hostgate/internal/store/storetest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, pgtest.NewDatabase(t))
	})
}

// open opens the store at url and closes it at cleanup.
func open(t *testing.T, url string) store.Store {
	t.Helper()
	db, err := postgres.Open(t.Context(), url)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return store.New(db)
}

// TestReopen checks that opening a migrated database again applies
// nothing and keeps the data.
func TestReopen(t *testing.T) {
	url := pgtest.NewDatabase(t)
	s := open(t, url)
	u := accounts.User{ID: "u1", Email: "ann@example.com", DisplayName: "Ann", Status: accounts.StatusActive}
	if err := s.Accounts.CreateUser(t.Context(), u, "h", accounts.Session{ID: "s1", UserID: "u1"}, []byte("r1")); err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	if _, err := open(t, url).Accounts.UserByID(t.Context(), "u1"); err != nil {
		t.Errorf("UserByID after reopening: %v", err)
	}

	applied, err := postgres.Migrate(t.Context(), rawDB(t, url))
	if err != nil || len(applied) != 0 {
		t.Errorf("Migrate on a migrated database: got %v, %v; want none applied", applied, err)
	}
}

// TestConcurrentOpen checks that hub instances starting together on a new
// database migrate it once between them.
func TestConcurrentOpen(t *testing.T) {
	url := pgtest.NewDatabase(t)
	done := make(chan error, 3)
	for range 3 {
		go func() {
			db, err := postgres.Open(t.Context(), url)
			if err == nil {
				err = db.Close()
			}
			done <- err
		}()
	}
	for range 3 {
		if err := <-done; err != nil {
			t.Errorf("concurrent Open: %v", err)
		}
	}
}

func rawDB(t *testing.T, url string) *sql.DB {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestOpenBadURL(t *testing.T) {
	if _, err := postgres.Open(t.Context(), "postgres://%zz"); err == nil {
		t.Error("Open with a malformed URL: got nil error")
	}
}

func BenchmarkCharge(b *testing.B) {
	db, err := postgres.Open(b.Context(), pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	storetest.BenchmarkCharge(b, store.New(db))
}

// TestPoolSize checks that pool_max_conns sizes the pool and is not sent
// to the server (which would refuse an unknown parameter).
func TestPoolSize(t *testing.T) {
	url := pgtest.NewDatabase(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	s := open(t, url+sep+"pool_max_conns=3")
	if got := s.PoolStats()["main"].MaxOpenConnections; got != 3 {
		t.Errorf("MaxOpenConnections with pool_max_conns=3: got %d", got)
	}
	if got := open(t, url).PoolStats()["main"].MaxOpenConnections; got != 20 {
		t.Errorf("MaxOpenConnections by default: got %d, want 20", got)
	}
	for _, bad := range []string{"0", "-1", "x", "1001"} {
		if db, err := postgres.Open(t.Context(), url+sep+"pool_max_conns="+bad); err == nil {
			db.Close()
			t.Errorf("pool_max_conns=%s: got nil error", bad)
		}
	}
}

func BenchmarkIdleFlush(b *testing.B) {
	db, err := postgres.Open(b.Context(), pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	storetest.BenchmarkIdleFlush(b, store.New(db))
}

// TestOpenClassifiesConnectFailures checks that a missing database and a
// closed port come back as a ConnectError with the reason, for the hub's
// one-line start-up error.
func TestOpenClassifiesConnectFailures(t *testing.T) {
	u, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/hostgate_no_such_db"
	missing := u.String()
	u.Host = "127.0.0.1:1"
	closed := u.String()
	for _, tt := range []struct {
		url  string
		want error
	}{{missing, postgres.ErrNoDatabase}, {closed, postgres.ErrUnreachable}} {
		_, err := postgres.Open(t.Context(), tt.url)
		ce, ok := errors.AsType[*postgres.ConnectError](err)
		if !ok || !errors.Is(err, tt.want) || ce.Database != "hostgate_no_such_db" {
			t.Errorf("Open(%s) = %v, want a ConnectError for hostgate_no_such_db that is %v", tt.url, err, tt.want)
		}
	}
}
