package sqlite_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/paging"
	"hostgate/internal/store"
	"hostgate/internal/store/sqlite"
	"hostgate/internal/store/storetest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, filepath.Join(t.TempDir(), "hostgate.db"))
	})
}

// open opens the store at path and closes it at cleanup.
func open(t *testing.T, path string) store.Store {
	t.Helper()
	db, err := sqlite.Open(t.Context(), path)
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
	path := filepath.Join(t.TempDir(), "hostgate.db")
	s := open(t, path)
	u := accounts.User{ID: "u1", Email: "ann@example.com", DisplayName: "Ann", Status: accounts.StatusActive}
	if err := s.Accounts.CreateUser(t.Context(), u, "h", accounts.Session{ID: "s1", UserID: "u1"}, []byte("r1")); err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	if _, err := open(t, path).Accounts.UserByID(t.Context(), "u1"); err != nil {
		t.Errorf("UserByID after reopening: %v", err)
	}

	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatalf("sql.Open: %v", err)
	}
	t.Cleanup(func() { _ = raw.Close() })
	applied, err := sqlite.Migrate(t.Context(), raw)
	if err != nil || len(applied) != 0 {
		t.Errorf("Migrate on a migrated database: got %v, %v; want none applied", applied, err)
	}
}

// TestConcurrentWrites checks the reason for the single writing
// connection: many writers and readers at once, and no SQLITE_BUSY.
func TestConcurrentWrites(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "hostgate.db"))
	const workers, each = 16, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*2)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("u-%d-%d", w, i)
				u := accounts.User{ID: id, Email: id + "@example.com", DisplayName: id, Status: accounts.StatusActive}
				sess := accounts.Session{ID: "s-" + id, UserID: id, ExpiresAt: time.Now().Add(time.Hour)}
				errs <- s.Accounts.CreateUser(t.Context(), u, "h", sess, []byte(id))
				_, _, err := s.Accounts.ListUsers(t.Context(), accounts.UserFilter{Query: "u-"}, paging.Page{Limit: 10})
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent write or read: %v", err)
		}
	}
	if _, total, _ := s.Accounts.ListUsers(t.Context(), accounts.UserFilter{}, paging.Page{Limit: 1}); total != workers*each {
		t.Errorf("users: got %d, want %d", total, workers*each)
	}
}

// TestPathEscaping checks that characters special in file: URIs are kept
// as part of the file name.
func TestPathEscaping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a dir?x=1#frag%20", "hostgate.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	open(t, path)
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database file: %v", err)
	}
}

func BenchmarkCharge(b *testing.B) {
	db, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "hostgate.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	storetest.BenchmarkCharge(b, store.New(db))
}

func BenchmarkIdleFlush(b *testing.B) {
	db, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "hostgate.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	storetest.BenchmarkIdleFlush(b, store.New(db))
}
