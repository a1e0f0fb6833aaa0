package sqldb_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"hostgate/internal/accounts"
	"hostgate/internal/hosts"
	"hostgate/internal/pgtest"
	"hostgate/internal/store/postgres"
	"hostgate/internal/store/sqldb"
	"hostgate/internal/store/sqlite"
)

// planCase is a searched list's query and the indexes its plan must use.
type planCase struct {
	name  string
	query func(d *sqldb.DB) (string, []any)
	// sqlite and postgres are what each engine's plan must name.
	sqlite, postgres []string
}

var planCases = []planCase{
	{"admin hosts, part", func(d *sqldb.DB) (string, []any) {
		return sqldb.AdminHostsQuery(d, hosts.Filter{Query: "owner0012@"})
	}, []string{"host_search VIRTUAL TABLE", "s VIRTUAL TABLE"}, []string{"host_search_name_trgm", "host_search_id_trgm", "host_search_public_ip_trgm", "users_email_trgm"}},
	{"admin hosts, start", func(d *sqldb.DB) (string, []any) {
		return sqldb.AdminHostsQuery(d, hosts.Filter{Query: "qx", QueryPrefix: true})
	}, []string{"hosts_name_prefix", "hosts_id_prefix", "hosts_public_ip_prefix", "users_email_prefix"},
		[]string{"host_search_name_prefix", "host_search_id_prefix", "host_search_public_ip_prefix", "users_email_prefix"}},
	{"owner's hosts, part", func(d *sqldb.DB) (string, []any) {
		return sqldb.OwnedHostsQuery(d, "big", hosts.OwnedFilter{Query: "node-0012"})
	}, []string{"host_search VIRTUAL TABLE", "SEARCH hosts USING INDEX sqlite_autoindex_hosts_1 (id=?)"}, []string{"host_search_name_trgm"}},
	// Tags (migration 0017): every host has env=e0..e9 and rack=r0..r999.
	{"owner's hosts by tag (Select)", func(d *sqldb.DB) (string, []any) {
		return sqldb.SelectHostsQuery(d, "big", hosts.OwnedFilter{TagExprs: []hosts.TagExpr{{Key: "env", Value: "e3", HasValue: true}}})
	}, []string{"host_tags USING COVERING INDEX host_tags_lookup"}, []string{"Index Only Scan using host_tags_lookup"}},
	{"owner's hosts by a key (Select)", func(d *sqldb.DB) (string, []any) {
		return sqldb.SelectHostsQuery(d, "big", hosts.OwnedFilter{TagExprs: []hosts.TagExpr{{Key: "rack"}}})
	}, []string{"host_tags_lookup"}, []string{"host_tags_lookup"}},
	{"owner's hosts by tag and status (Select)", func(d *sqldb.DB) (string, []any) {
		return sqldb.SelectHostsQuery(d, "big", hosts.OwnedFilter{TagExprs: []hosts.TagExpr{{Key: "rack", Value: "r3", HasValue: true}},
			Statuses: []hosts.Status{hosts.StatusPending}})
	}, []string{"host_tags_lookup", "SEARCH hosts USING INDEX sqlite_autoindex_hosts_1 (id=?)"}, []string{"host_tags_lookup", "hosts_pkey"}},
	{"owner's host page by two tags", func(d *sqldb.DB) (string, []any) {
		return sqldb.OwnedHostsQuery(d, "big", hosts.OwnedFilter{TagExprs: []hosts.TagExpr{
			{Key: "rack", Value: "r7", HasValue: true}, {Key: "env", Value: "e7", HasValue: true}}})
	}, []string{"host_tags_lookup"}, []string{"host_tags_lookup"}},
	{"admin hosts by tag", func(d *sqldb.DB) (string, []any) {
		return sqldb.AdminHostsQuery(d, hosts.Filter{Tags: []hosts.TagExpr{{Key: "rack", Value: "r12", HasValue: true}}})
	}, []string{"host_tags_any_owner"}, []string{"host_tags_any_owner"}},
	{"users, part", func(d *sqldb.DB) (string, []any) {
		return sqldb.UsersQuery(d, accounts.UserFilter{Query: "owner0012"})
	}, []string{"s VIRTUAL TABLE"}, []string{"users_email_trgm", "users_display_name_trgm"}},
	{"users, start", func(d *sqldb.DB) (string, []any) {
		return sqldb.UsersQuery(d, accounts.UserFilter{Query: "qx", QueryPrefix: true})
	}, []string{"users_email_prefix", "users_display_name_prefix"}, []string{"users_email_prefix", "users_display_name_prefix"}},
}

// TestSearchPlans: each searched list's query finds its matches through
// the search indexes on both engines, never by scanning hosts or users: on
// SQLite as its planner chooses without statistics (the hub never runs
// ANALYZE), on PostgreSQL after VACUUM (ANALYZE), as autovacuum leaves it, over 20,000 hosts of
// 5,000 users and selective queries, so that a query whose shape keeps an
// index from being used (an OR over a join, say) fails here rather than
// at fleet size. The tag lookups (host lists, Select) read host_tags
// through host_tags_lookup (one owner's) or host_tags_any_owner (admins').
func TestSearchPlans(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		d, db := openPlanSQLite(t)
		seedPlan(t, db, []string{
			`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 4999)
			INSERT INTO users (id, email, display_name, status, password_hash, created_at)
			SELECT printf('u%04d', i), printf('%s%s-owner%04d@example.com', char(97 + i % 26), char(97 + (i / 26) % 26), i),
			printf('%s%s Owner %d', char(97 + (i / 7) % 26), char(97 + (i / 3) % 26), i), 'active', '!', '2026-01-01T00:00:00.000000Z' FROM n`,
			`INSERT INTO users (id, email, display_name, status, password_hash, created_at) VALUES ('big', 'big@example.com', 'Big', 'active', '!', '2026-01-01T00:00:00.000000Z')`,
			`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999)
			INSERT INTO hosts (id, user_id, name, bid, listen_port, public_ip, status, created_at, secret_sealed)
			SELECT printf('h%05d', i), CASE WHEN i < 5000 THEN 'big' ELSE printf('u%04d', i % 5000) END,
			printf('%s%s-node-%05d', char(97 + (i / 5) % 26), char(97 + (i / 11) % 26), i), i, 1, printf('10.%d.%d.%d', i / 65536, (i / 256) % 256, i % 256),
			'pending', '2026-01-01T00:00:00.000000Z', x'00' FROM n`,
			`INSERT INTO host_tags (host_id, user_id, key, value, created_at) SELECT id, user_id, 'env', 'e' || (bid % 10), created_at FROM hosts`,
			`INSERT INTO host_tags (host_id, user_id, key, value, created_at) SELECT id, user_id, 'rack', 'r' || (bid % 1000), created_at FROM hosts`,
		})
		scan := regexp.MustCompile(`(?m)^SCAN (hosts|users|u|o)\b`)
		for _, c := range planCases {
			q, args := c.query(d)
			plan := explain(t, db, "EXPLAIN QUERY PLAN "+q, args)
			if m := scan.FindString(plan); m != "" {
				t.Errorf("%s: the plan scans a table (%s):\n%s", c.name, m, plan)
			}
			for _, want := range c.sqlite {
				if !strings.Contains(plan, want) {
					t.Errorf("%s: the plan does not use %s:\n%s", c.name, want, plan)
				}
			}
		}
	})
	t.Run("postgres", func(t *testing.T) {
		d, pool := openPlanPG(t)
		seedPlan(t, pool, []string{
			`INSERT INTO users (id, email, display_name, status, password_hash, created_at)
			SELECT format('u%s', lpad(i::text, 4, '0')), format('%s%s-owner%s@example.com', chr(97 + i % 26), chr(97 + (i / 26) % 26), lpad(i::text, 4, '0')),
			format('%s%s Owner %s', chr(97 + (i / 7) % 26), chr(97 + (i / 3) % 26), i), 'active', '!', now() FROM generate_series(0, 4999) i`,
			`INSERT INTO users (id, email, display_name, status, password_hash, created_at) VALUES ('big', 'big@example.com', 'Big', 'active', '!', now())`,
			`INSERT INTO hosts (id, user_id, name, bid, listen_port, public_ip, status, created_at, secret_sealed)
			SELECT format('h%s', lpad(i::text, 5, '0')), CASE WHEN i < 5000 THEN 'big' ELSE format('u%s', lpad((i % 5000)::text, 4, '0')) END,
			format('%s%s-node-%s', chr(97 + (i / 5) % 26), chr(97 + (i / 11) % 26), lpad(i::text, 5, '0')), i, 1, format('10.%s.%s.%s', i / 65536, (i / 256) % 256, i % 256),
			'pending', now(), '\x00'::bytea FROM generate_series(0, 19999) i`,
			`INSERT INTO host_tags (host_id, user_id, key, value, created_at) SELECT id, user_id, 'env', 'e' || (bid % 10), created_at FROM hosts`,
			`INSERT INTO host_tags (host_id, user_id, key, value, created_at) SELECT id, user_id, 'rack', 'r' || (bid % 1000), created_at FROM hosts`,
			`VACUUM (ANALYZE) hosts`, `VACUUM (ANALYZE) users`, `VACUUM (ANALYZE) host_search`, `VACUUM (ANALYZE) host_tags`,
		})
		// The matching parts name their tables bare (hosts, hosts_1, …) or
		// s and h; the join of the page's owners (users u) is left to the
		// planner's costs: a hash join over a small users table is its
		// choice.
		seq := regexp.MustCompile(`(?m)Seq Scan on (hosts|users|host_search)( hosts_\d+| users_\d+| host_search_\d+| s| h)?$`)
		for _, c := range planCases {
			q, args := c.query(d)
			plan := explain(t, pool, "EXPLAIN (COSTS OFF) "+q, args)
			if m := seq.FindString(plan); m != "" {
				t.Errorf("%s: the plan scans a table (%s):\n%s", c.name, m, plan)
			}
			for _, want := range c.postgres {
				if !strings.Contains(plan, want) {
					t.Errorf("%s: the plan does not use %s:\n%s", c.name, want, plan)
				}
			}
		}
	})
}

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func seedPlan(t *testing.T, db querier, stmts []string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.ExecContext(t.Context(), s); err != nil {
			t.Fatalf("seed: %v\n%s", err, s)
		}
	}
}

// explain returns the plan's lines (the detail column of SQLite's).
func explain(t *testing.T, db querier, q string, args []any) string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), q, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.TrimSpace(string(asText(vals[len(vals)-1]))))
	}
	return strings.Join(lines, "\n")
}

func asText(v any) []byte {
	switch v := v.(type) {
	case string:
		return []byte(v)
	case []byte:
		return v
	}
	return nil
}

// TestJobClaimPlan: a job's next queued runs are read from job_runs_claim
// in seq order, with no sort of the job's queued runs, on PostgreSQL under
// statistics taken when the job was new (as autovacuum can leave them for
// minutes): 100,000 runs analyzed while all were queued, then 80,000
// finished. Before migration 0020 this plan was a bitmap scan of
// job_runs_results and a sort of the 20,000 queued runs, 250 ms a claim
// in the 100,000-agent scale run.
func TestJobClaimPlan(t *testing.T) {
	_, pool := openPlanPG(t)
	seedPlan(t, pool, []string{
		`INSERT INTO users (id, email, display_name, status, password_hash, created_at) VALUES ('big', 'big@example.com', 'Big', 'active', '!', now())`,
		`INSERT INTO jobs (id, user_id, spec, target, state, host_count, queued, expires_at, created_at)
		VALUES ('job1', 'big', '{}', '{}', 'running', 100000, 100000, now() + interval '1 hour', now())`,
		`INSERT INTO job_runs (id, job_id, host_id, seq, wave, state)
		SELECT format('r%s', i), 'job1', format('h%s', i), i, 1, 'queued' FROM generate_series(1, 100000) i`,
		`VACUUM (ANALYZE) job_runs`,
		`UPDATE job_runs SET state = 'succeeded', finished_at = now() WHERE seq <= 80000`,
	})
	q, args := sqldb.CandidatesQuery("job1", 1, 100)
	plan := explain(t, pool, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) "+q, args)
	if !strings.Contains(plan, "job_runs_claim") || strings.Contains(plan, "Sort") {
		t.Errorf("the claim does not read job_runs_claim in order:\n%s", plan)
	}
	t.Logf("plan:\n%s", plan)
	rows, err := pool.QueryContext(t.Context(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var first, n int
	for rows.Next() {
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			first = int(vals[3].(int64))
		}
		n++
	}
	if n != 100 || first != 80001 {
		t.Errorf("the claim read %d runs from seq %d, want 100 from 80001", n, first)
	}

	// SQLite (no statistics: the hub never runs ANALYZE) reads the job's
	// queued runs in seq order from an index (job_runs_results or
	// job_runs_claim, its choice), never sorting them.
	_, db := openPlanSQLite(t)
	splan := explain(t, db, "EXPLAIN QUERY PLAN "+q, args)
	if !strings.Contains(splan, "SEARCH job_runs USING INDEX") || strings.Contains(splan, "TEMP B-TREE") {
		t.Errorf("sqlite: the claim does not read job_runs_claim in order:\n%s", splan)
	}
}

// openPlanPG opens a new PostgreSQL database with the hub's schema, and a
// plain pool on it for seeding and EXPLAIN.
func openPlanPG(t *testing.T) (*sqldb.DB, *sql.DB) {
	t.Helper()
	url := pgtest.NewDatabase(t)
	d, err := postgres.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	pool, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return d, pool
}

// openPlanSQLite is openPlanPG for a new SQLite file.
func openPlanSQLite(t *testing.T) (*sqldb.DB, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.db")
	d, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return d, db
}
