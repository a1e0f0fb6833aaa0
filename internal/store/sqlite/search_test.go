package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"hostgate/internal/accounts"
	"hostgate/internal/hosts"
	"hostgate/internal/paging"
	"hostgate/internal/store"
	"hostgate/internal/store/sqlite"
)

// TestSearchIndexTriggers: the FTS5 tables of migration 0015 follow
// writes no store method makes (an email change, a hard delete), and a
// backup (VACUUM INTO, which may renumber the implicit rowids of hosts and
// users) searches as the original does: the index is keyed by its own
// integer keys, not by those rowids.
func TestSearchIndexTriggers(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "hostgate.db")
	s := open(t, path)
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var ids []string
	for i, email := range []string{"ann@example.com", "bob@example.org", "cid@example.net"} {
		u := accounts.User{ID: "u" + email[:3], Email: email, DisplayName: email[:3], Status: accounts.StatusActive, CreatedAt: now}
		if err := s.Accounts.CreateUser(ctx, u, "hash", accounts.Session{ID: "s" + email[:3], UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}, []byte(email)); err != nil {
			t.Fatal(err)
		}
		h := hosts.Host{ID: "host-" + email[:3], UserID: u.ID, Name: "box-" + email[:3], BID: int64(i + 1), ListenPort: 1,
			Status: hosts.StatusPending, CreatedAt: now.Add(time.Duration(i) * time.Minute), WebhookFormat: hosts.DefaultWebhookFormat}
		if err := s.Hosts.CreateHost(ctx, h, hosts.Secrets{SecretSealed: []byte("x")}, nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, h.ID)
	}
	find := func(st store.Store, q string) []string {
		t.Helper()
		got, _, err := st.Hosts.ListHosts(ctx, hosts.Filter{Query: q, QueryPrefix: paging.PrefixOnly(q)}, paging.Page{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range got {
			out = append(out, h.ID)
		}
		slices.Sort(out)
		return out
	}
	users := func(st store.Store, q string) int {
		t.Helper()
		_, total, err := st.Accounts.ListUsers(ctx, accounts.UserFilter{Query: q, QueryPrefix: paging.PrefixOnly(q)}, paging.Page{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		return total
	}
	if got := find(s, "example.org"); !slices.Equal(got, ids[1:2]) {
		t.Fatalf("by email: got %v", got)
	}
	if _, err := raw.ExecContext(ctx, `UPDATE users SET email = 'bea@elsewhere.io' WHERE id = 'ubob'`); err != nil {
		t.Fatal(err)
	}
	if got := find(s, "example.org"); len(got) != 0 {
		t.Errorf("old email still finds %v", got)
	}
	if got := find(s, "elsewhere"); !slices.Equal(got, ids[1:2]) {
		t.Errorf("new email: got %v", got)
	}
	if n := users(s, "elsewhere"); n != 1 {
		t.Errorf("users by new email: %d", n)
	}
	if _, err := raw.ExecContext(ctx, `DELETE FROM hosts WHERE id = 'host-cid'`); err != nil {
		t.Fatal(err)
	}
	if got := find(s, "box-"); !slices.Equal(got, ids[:2]) {
		t.Errorf("after a hard delete: got %v", got)
	}
	var indexed int
	if err := raw.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM host_search) + (SELECT count(*) FROM host_search_keys)`).Scan(&indexed); err != nil {
		t.Fatal(err)
	}
	if indexed != 4 {
		t.Errorf("host_search and its keys hold %d rows, want 2 each", indexed)
	}

	backup := filepath.Join(t.TempDir(), "backup.db")
	if err := sqlite.Backup(ctx, path, backup); err != nil {
		t.Fatal(err)
	}
	b := open(t, backup)
	for _, q := range []string{"box-", "elsewhere", "ann@", "bo"} {
		if got, want := find(b, q), find(s, q); !slices.Equal(got, want) {
			t.Errorf("backup, q=%s: got %v, want %v", q, got, want)
		}
	}
	if got, want := users(b, "example"), users(s, "example"); got != want || got != 2 {
		t.Errorf("backup, users q=example: got %d, want %d (2)", got, want)
	}
}
