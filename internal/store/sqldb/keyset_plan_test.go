package sqldb_test

import (
	"strings"
	"testing"
	"time"

	"hostgate/internal/hosts"
	"hostgate/internal/paging"
	"hostgate/internal/store/sqldb"
)

// TestKeysetPlans: a page after a key (keyset paging) of an owner's 5,000
// hosts among 20,000, half never seen, is a range of an index in every
// order on both engines: no sort of the owner's hosts, so a page deep in
// the list costs what the first does. Where the rows after a key are two
// ranges of the index (by the nullable last_seen_at: ascending after a
// never-seen host, descending after a seen one), each is read as a range
// and only the two pages are sorted: no filter walks the owner's hosts.
func TestKeysetPlans(t *testing.T) {
	mid := time.Date(2026, 1, 1, 0, 0, 2, 500_000, time.UTC)
	keys := map[hosts.Sort]paging.Key{
		hosts.SortName: {"mm-node-02500", "h02500"}, hosts.SortNameDesc: {"mm-node-02500", "h02500"},
		hosts.SortCreated: {mid, "h02500"}, hosts.SortNewest: {mid, "h02500"},
		hosts.SortLastSeen: {mid, "h02500"}, hosts.SortLastSeenDesc: {mid, "h02500"},
	}
	check := func(t *testing.T, d *sqldb.DB, db querier, explainPrefix string, bad []string, want string) {
		for _, o := range hosts.SortOrders {
			k := keys[o.Sort]
			for _, k := range []paging.Key{k, {nil, "h02500"}} {
				if k[0] == nil && !o.Nullable {
					continue
				}
				q, args, err := sqldb.OwnedPageQuery(d, "big", o.Sort, k)
				if err != nil {
					t.Fatal(err)
				}
				plan := explain(t, db, explainPrefix+q, args)
				for _, b := range bad {
					if strings.Contains(plan, b) {
						t.Errorf("%s after %v: the plan has %q:\n%s", o.Sort, k, b, plan)
					}
				}
				if !strings.Contains(plan, want) {
					t.Errorf("%s after %v: the plan does not use %q:\n%s", o.Sort, k, want, plan)
				}
				t.Logf("%s after %v:\n%s", o.Sort, k, plan)
			}
		}
		// The admin list in its default order, newest first over every
		// owner: a range of hosts_newest too.
		q, args, err := sqldb.AdminPageQuery(d, hosts.Filter{}, paging.Key{mid, "h02500"})
		if err != nil {
			t.Fatal(err)
		}
		plan := explain(t, db, explainPrefix+q, args)
		if !strings.Contains(plan, "hosts_newest") || strings.Contains(plan, "SCAN h") || strings.Contains(plan, "Seq Scan on hosts") {
			t.Errorf("admin -created_at after a key: the plan is no range of hosts_newest:\n%s", plan)
		}
		t.Logf("admin -created_at after a key:\n%s", plan)
	}
	t.Run("sqlite", func(t *testing.T) {
		d, db := openPlanSQLite(t)
		seedPlan(t, db, []string{
			`INSERT INTO users (id, email, display_name, status, password_hash, created_at) VALUES ('big', 'big@example.com', 'Big', 'active', '!', '2026-01-01T00:00:00.000000Z')`,
			`INSERT INTO users (id, email, display_name, status, password_hash, created_at) VALUES ('other', 'o@example.com', 'O', 'active', '!', '2026-01-01T00:00:00.000000Z')`,
			`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999)
			INSERT INTO hosts (id, user_id, name, bid, listen_port, public_ip, status, created_at, last_seen_at, secret_sealed)
			SELECT printf('h%05d', i), CASE WHEN i < 5000 THEN 'big' ELSE 'other' END,
			printf('%s%s-node-%05d', char(97 + (i / 5) % 26), char(97 + (i / 11) % 26), i), i, 1, '',
			'pending', strftime('%Y-%m-%dT%H:%M:%S', '2026-01-01', '+' || (i / 1000) || ' seconds') || '.000000Z',
			CASE WHEN i % 2 = 0 THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%S', '2026-01-01', '+' || (i / 1000) || ' seconds') || '.000000Z' END,
			x'00' FROM n`,
		})
		check(t, d, db, "EXPLAIN QUERY PLAN ", []string{"SCAN hosts", "(user_id=?)\n"}, "USING INDEX")
	})
	t.Run("postgres", func(t *testing.T) {
		d, pool := openPlanPG(t)
		seedPlan(t, pool, []string{
			`INSERT INTO users (id, email, display_name, status, password_hash, created_at) VALUES ('big', 'big@example.com', 'Big', 'active', '!', now())`,
			`INSERT INTO users (id, email, display_name, status, password_hash, created_at) VALUES ('other', 'o@example.com', 'O', 'active', '!', now())`,
			`INSERT INTO hosts (id, user_id, name, bid, listen_port, public_ip, status, created_at, last_seen_at, secret_sealed)
			SELECT format('h%s', lpad(i::text, 5, '0')), CASE WHEN i < 5000 THEN 'big' ELSE 'other' END,
			format('%s%s-node-%s', chr(97 + (i / 5) % 26), chr(97 + (i / 11) % 26), lpad(i::text, 5, '0')), i, 1, '',
			'pending', timestamptz '2026-01-01 00:00:00+00' + (i / 1000) * interval '1 second',
			CASE WHEN i % 2 = 0 THEN NULL ELSE timestamptz '2026-01-01 00:00:00+00' + (i / 1000) * interval '1 second' END,
			'\x00'::bytea FROM generate_series(0, 19999) i`,
			`VACUUM (ANALYZE) hosts`,
		})
		check(t, d, pool, "EXPLAIN (COSTS OFF) ", []string{"Seq Scan", "Filter:"}, "Index")
	})
}
