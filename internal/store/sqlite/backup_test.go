package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"hostgate/internal/accounts"
	"hostgate/internal/store/sqlite"
)

// TestBackupDuringWrites copies a database while another connection keeps
// writing users to it: the copy opens, passes SQLite's integrity check and
// holds every user committed before the backup began.
func TestBackupDuringWrites(t *testing.T) {
	dir := t.TempDir()
	s := open(t, filepath.Join(dir, "hostgate.db"))
	ctx := t.Context()
	create := func(i int) error {
		id := fmt.Sprintf("u%d", i)
		u := accounts.User{ID: id, Email: id + "@example.com", DisplayName: id, Status: accounts.StatusActive}
		return s.Accounts.CreateUser(ctx, u, "h", accounts.Session{ID: "s" + id, UserID: id}, []byte("r"+id))
	}
	const before = 20
	for i := range before {
		if err := create(i); err != nil {
			t.Fatal(err)
		}
	}
	writeCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := before; writeCtx.Err() == nil; i++ {
			if err := create(i); err != nil && writeCtx.Err() == nil {
				t.Errorf("write during the backup: %v", err)
				return
			}
		}
	})
	dest := filepath.Join(dir, "copy.db")
	err := sqlite.Backup(ctx, filepath.Join(dir, "hostgate.db"), dest)
	stop()
	wg.Wait()
	if err != nil {
		t.Fatalf("Backup: %v", err)
	}
	if fi, err := os.Stat(dest); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Fatalf("copy: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}

	c := open(t, dest)
	for i := range before {
		if _, err := c.Accounts.UserByID(ctx, fmt.Sprintf("u%d", i)); err != nil {
			t.Errorf("user u%d in the copy: %v", i, err)
		}
	}
	var check string
	raw := rawDB(t, dest)
	if err := raw.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check = %q, %v; want ok", check, err)
	}
}

// TestBackupRefuses: an existing destination is left alone, and a missing
// database is not created.
func TestBackupRefuses(t *testing.T) {
	dir := t.TempDir()
	open(t, filepath.Join(dir, "hostgate.db"))
	dest := filepath.Join(dir, "exists.db")
	if err := os.WriteFile(dest, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := sqlite.Backup(t.Context(), filepath.Join(dir, "hostgate.db"), dest); err == nil {
		t.Error("Backup over an existing file succeeded")
	}
	if b, _ := os.ReadFile(dest); string(b) != "keep me" {
		t.Errorf("existing file now holds %q", b)
	}

	missing := filepath.Join(dir, "none", "hostgate.db")
	if err := sqlite.Backup(t.Context(), missing, filepath.Join(dir, "b.db")); err == nil {
		t.Error("Backup of a missing database succeeded")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("Backup created the missing database")
	}
	if _, err := os.Stat(filepath.Join(dir, "b.db")); err == nil {
		t.Error("a failed Backup left its destination behind")
	}
}

// rawDB opens path with database/sql alone, closed at cleanup.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}
