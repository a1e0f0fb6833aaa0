package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the embedded backend's database, seeded in bulk

	"hostgate/internal/store"
)

// The search scenario's fleet: searchUsers seeded customers with two
// hosts each, and one console customer with the rest of searchHosts.
const (
	searchUsers = 5000
	searchHosts = 20000
	// searchTarget is the p95 every search line must stay under.
	searchTarget = 100 * time.Millisecond
)

// searchScenario: the indexed search (migration 0015) on each backend.
// GET /v1/admin/hosts?q= by part of an owner's email and GET
// /v1/user/hosts?q= by part of a host name, first on a hub with 20 hosts
// (the floors), then with 20,000 hosts of 5,001 users seeded in bulk
// (straight into the database, as hostlist's provisioning would take
// minutes for 5,000 accounts), the same queries beside their floors. A
// line whose p95 reaches searchTarget fails the scenario.
func (b *bench) searchScenario(ctx context.Context) error {
	return b.onEachBackend(func(be *backend) error {
		h, err := b.startHub(ctx, be)
		if err != nil {
			return err
		}
		defer h.stop()
		adminToken, err := adminLogin(h)
		if err != nil {
			return err
		}
		small, err := register(h, "ops@smallco.example")
		if err != nil {
			return err
		}
		for i := range 20 {
			if err := call("POST", h.url+"/v1/user/hosts", small.access, map[string]any{"name": fmt.Sprintf("small-%02d", i)}, nil); err != nil {
				return err
			}
		}
		big, err := register(h, "fleet@bigco.example")
		if err != nil {
			return err
		}
		admin := h.url + "/v1/admin/hosts?q="
		user := h.url + "/v1/user/hosts?q="
		var lines []string
		measure := func(scenario, floor, url, token string) {
			b.measureGet(ctx, scenario, be.name, floor, url, token)
			if p95 := b.rows[len(b.rows)-1]; p95.value >= ms(searchTarget) {
				lines = append(lines, fmt.Sprintf("%s: p95 %.1f ms", scenario, p95.value))
			}
		}
		measure("search, 20 hosts: admin q=part of an owner's email (smallco)", "search-admin", admin+"smallco", adminToken)
		measure("search, 20 hosts: user q=part of a name (mall-07)", "search-user", user+"mall-07", small.access)

		start := time.Now()
		if err := seedSearch(ctx, be, big.userID); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "  search %s: %d users, %d hosts seeded in %v\n", be.name, searchUsers, searchHosts, time.Since(start).Round(time.Second))
		measure("search, 20,000 hosts: admin q=part of an owner's email (smallco)", "search-admin", admin+"smallco", adminToken)
		measure("search, 20,000 hosts: admin q=part of an owner's email (owner0123@)", "search-admin", admin+url.QueryEscape("owner0123@"), adminToken)
		measure("search, 20,000 hosts: admin q=part of a host name (fleet-0012)", "search-admin", admin+"fleet-0012", adminToken)
		measure("search, 20,000 hosts: admin q of 2 characters (sm, a prefix)", "search-admin", admin+"sm", adminToken)
		measure("search, 20,000 hosts: user q=part of a name (mall-07), 20 own hosts", "search-user", user+"mall-07", small.access)
		measure("search, 20,000 hosts: user q=part of a name (fleet-0012), 10,000 own hosts", "search-user", user+"fleet-0012", big.access)
		if len(lines) > 0 {
			return fmt.Errorf("p95 at or over the %v target: %s", searchTarget, strings.Join(lines, "; "))
		}
		return nil
	})
}

// adminLogin signs the bench's admin in and returns its access token.
func adminLogin(h *hubProc) (string, error) {
	var admin struct {
		AccessToken string `json:"access_token"`
	}
	err := call("POST", h.url+"/v1/admin/auth/login", "", map[string]string{"username": benchAdmin, "password": benchPassword}, &admin)
	return admin.AccessToken, err
}

// register creates a console user with this email.
func register(h *hubProc, email string) (account, error) {
	var auth struct {
		AccessToken string `json:"access_token"`
		User        struct{ ID string }
	}
	err := call("POST", h.url+"/v1/public/auth/register", "", map[string]string{"email": email, "password": "bench password ok"}, &auth)
	return account{userID: auth.User.ID, access: auth.AccessToken}, err
}

// seedSearch inserts searchUsers customers (owner0000@customer0.example …)
// with two hosts each, and gives owner the rest of searchHosts (fleet-000000
// …), in a few statements through the hub's own database, where the
// search indexes' triggers (SQLite) and indexes (PostgreSQL) take them in
// as they would hosts created one by one. On PostgreSQL the statistics
// are brought up to date after, as autovacuum would (settleTables).
func seedSearch(ctx context.Context, be *backend, owner string) error {
	rest := searchHosts - 2*searchUsers
	var driver, dsn string
	var stmts []string
	if u := be.env["HOSTGATE_DATABASE_URL"]; u != "" {
		driver, dsn = "pgx", u
		stmts = []string{
			fmt.Sprintf(`INSERT INTO users (id, email, display_name, status, password_hash, created_at)
				SELECT format('5eed0000-0000-4000-8000-%%s', lpad(i::text, 12, '0')), format('owner%%s@customer%%s.example', lpad(i::text, 4, '0'), i %% 50),
				'Owner ' || i, 'active', '!', now() - interval '1 day' + i * interval '1 second'
				FROM generate_series(0, %d) i`, searchUsers-1),
			fmt.Sprintf(`INSERT INTO hosts (id, user_id, name, bid, listen_port, public_ip, os, installed_version, status, created_at, secret_sealed)
				SELECT format('5eed1111-0000-4000-8000-%%s', lpad(i::text, 12, '0')), format('5eed0000-0000-4000-8000-%%s', lpad((i / 2)::text, 12, '0')),
				format('node-%%s', lpad(i::text, 5, '0')), i + 1, 23456, format('10.%%s.%%s.%%s', i / 65536, (i / 256) %% 256, i %% 256),
				'linux 6.1.0', '1.0.0', CASE WHEN i %% 3 = 0 THEN 'online' ELSE 'offline' END, now() - interval '1 day' + i * interval '1 second', '\x00'::bytea
				FROM generate_series(0, %d) i`, 2*searchUsers-1),
			fmt.Sprintf(`INSERT INTO hosts (id, user_id, name, bid, listen_port, public_ip, os, installed_version, status, created_at, secret_sealed)
				SELECT format('5eed2222-0000-4000-8000-%%s', lpad(i::text, 12, '0')), $1,
				format('fleet-%%s', lpad(i::text, 6, '0')), i + 1, 23456, format('10.200.%%s.%%s', i / 256, i %% 256),
				'linux 6.1.0', '1.0.0', 'pending', now() - interval '1 day' + i * interval '1 second', '\x00'::bytea
				FROM generate_series(0, %d) i`, rest-1),
			`VACUUM (ANALYZE) hosts`, `VACUUM (ANALYZE) users`, `VACUUM (ANALYZE) host_search`,
		}
	} else {
		driver = "sqlite"
		dsn = "file:" + filepath.Join(be.env["HOSTGATE_DATA_DIR"], store.FileName) + "?_pragma=busy_timeout(30000)"
		day := `strftime('%Y-%m-%dT%H:%M:%f000Z', 'now', '-1 day', '+' || i || ' seconds')`
		stmts = []string{
			fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
				INSERT INTO users (id, email, display_name, status, password_hash, created_at)
				SELECT printf('5eed0000-0000-4000-8000-%%012d', i), printf('owner%%04d@customer%%d.example', i, i %% 50),
				'Owner ' || i, 'active', '!', %s FROM n`, searchUsers-1, day),
			fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
				INSERT INTO hosts (id, user_id, name, bid, listen_port, public_ip, os, installed_version, status, created_at, secret_sealed)
				SELECT printf('5eed1111-0000-4000-8000-%%012d', i), printf('5eed0000-0000-4000-8000-%%012d', i / 2),
				printf('node-%%05d', i), i + 1, 23456, printf('10.%%d.%%d.%%d', i / 65536, (i / 256) %% 256, i %% 256),
				'linux 6.1.0', '1.0.0', CASE WHEN i %% 3 = 0 THEN 'online' ELSE 'offline' END, %s, x'00' FROM n`, 2*searchUsers-1, day),
			fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
				INSERT INTO hosts (id, user_id, name, bid, listen_port, public_ip, os, installed_version, status, created_at, secret_sealed)
				SELECT printf('5eed2222-0000-4000-8000-%%012d', i), $1,
				printf('fleet-%%06d', i), i + 1, 23456, printf('10.200.%%d.%%d', i / 256, i %% 256),
				'linux 6.1.0', '1.0.0', 'pending', %s, x'00' FROM n`, rest-1, day),
		}
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, s := range stmts {
		var args []any
		if strings.Contains(s, "$1") {
			args = []any{owner}
		}
		if _, err := db.ExecContext(ctx, s, args...); err != nil {
			return fmt.Errorf("seed search fleet: %w", err)
		}
	}
	return nil
}
