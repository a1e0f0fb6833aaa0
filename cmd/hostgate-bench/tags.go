package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"hostgate/internal/hosts"
	"hostgate/internal/loadtest"
	"hostgate/internal/store"
)

// The tags scenario's fleet: tagHosts hosts of one customer, each with
// three tags: env=e0..e9 (a tenth of the fleet each), role=r0..r3 and
// rack=k000..k099 (a hundredth each).
const (
	tagHosts = 100_000
	// tagTarget is the p95 every tag line must stay under (issue 26).
	tagTarget = 200 * time.Millisecond
)

// tagsScenario: resolving a tag over 100,000 hosts of one user (migration
// 0017, host_tags_lookup) on each backend. The fleet is seeded straight
// into the hub's database in a few statements (creating 100,000 hosts
// through the API would take minutes); then hosts.Service.Select, the
// jobs' entry, runs in this process against the same database (one tag
// of a tenth of the fleet: 10,000 ids; one of a hundredth: 1,000 ids),
// and GET /v1/user/hosts?tag= through the hub (one page and its total).
// A line whose p95 reaches tagTarget fails the scenario.
func (b *bench) tagsScenario(ctx context.Context) error {
	return b.onEachBackend(func(be *backend) error {
		h, err := b.startHub(ctx, be)
		if err != nil {
			return err
		}
		defer h.stop()
		owner, err := register(h, "tags@bigco.example")
		if err != nil {
			return err
		}
		start := time.Now()
		if err := seedTags(ctx, be, owner.userID); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "  tags %s: %d hosts with 3 tags each seeded in %v\n", be.name, tagHosts, time.Since(start).Round(time.Second))

		st, err := store.Open(ctx, be.env["HOSTGATE_DATABASE_URL"], be.env["HOSTGATE_DATA_DIR"], slog.New(slog.NewTextHandler(io.Discard, nil)))
		if err != nil {
			return err
		}
		defer st.Close()
		svc := hosts.NewService(st.Hosts, nil, nil, hosts.Config{PublicURL: &url.URL{Scheme: "http", Host: "bench"}}, nil,
			noDisconnect{}, noRotate{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
		var lines []string
		check := func() {
			if p95 := b.rows[len(b.rows)-1]; p95.value >= ms(tagTarget) {
				lines = append(lines, fmt.Sprintf("%s: p95 %.1f ms", p95.scenario, p95.value))
			}
		}
		for _, c := range []struct {
			tag  string
			want int
		}{{"env=e3", tagHosts / 10}, {"rack=k042", tagHosts / 100}} {
			scenario := fmt.Sprintf("tags, 100,000 hosts: Select %s (%d hosts)", c.tag, c.want)
			var bad error
			r := loadtest.Run(ctx, 1, b.dur, 3, func(ctx context.Context) error {
				ids, err := svc.Select(ctx, owner.userID, hosts.Selector{Tags: []string{c.tag}}, tagHosts)
				if err == nil && len(ids) != c.want {
					err = fmt.Errorf("%s selects %d hosts, want %d", c.tag, len(ids), c.want)
					bad = err
				}
				return err
			})
			if bad != nil {
				return bad
			}
			if r.Errors > 0 {
				return fmt.Errorf("%s: %d errors, first: %s", scenario, r.Errors, r.FirstError)
			}
			b.add(row{scenario: scenario, backend: be.name, metric: "p50", value: ms(r.P50), unit: "ms", better: "lower"})
			b.add(row{scenario: scenario, backend: be.name, metric: "p95", value: ms(r.P95), unit: "ms", better: "lower"})
			check()
		}
		for _, tag := range []string{"env=e3", "rack=k042"} {
			b.measureGet(ctx, "tags, 100,000 hosts: user list ?tag="+tag+" (a page of 50 and the total)", be.name, "",
				h.url+"/v1/user/hosts?tag="+tag, owner.access)
			check()
		}
		if len(lines) > 0 {
			return fmt.Errorf("p95 at or over the %v target: %s", tagTarget, strings.Join(lines, "; "))
		}
		return nil
	})
}

// noDisconnect and noRotate stand in for what the bench's Service never
// does (it only selects).
type noDisconnect struct{}

func (noDisconnect) Disconnect(context.Context, string, string) {}

type noRotate struct{}

func (noRotate) RotateIssue(context.Context, string, string, hosts.Issuance, hosts.ChangedBy) (hosts.Host, hosts.Secrets, error) {
	return hosts.Host{}, hosts.Secrets{}, errors.New("bench: no rotation")
}

// seedTags inserts tagHosts hosts of owner (tagged-000000 …) and their
// tags, in batches of a statement each, through the hub's own database;
// on PostgreSQL the statistics are brought up to date after, as
// autovacuum would.
func seedTags(ctx context.Context, be *backend, owner string) error {
	var driver, dsn string
	var stmts []string
	const batch = 20_000
	tags := `INSERT INTO host_tags (host_id, user_id, key, value, created_at)
		SELECT id, user_id, 'env', 'e' || (bid %% 10), created_at FROM hosts WHERE user_id = $1 AND bid > %[1]d AND bid <= %[2]d
		UNION ALL SELECT id, user_id, 'role', 'r' || (bid %% 4), created_at FROM hosts WHERE user_id = $1 AND bid > %[1]d AND bid <= %[2]d
		UNION ALL SELECT id, user_id, 'rack', %[3]s, created_at FROM hosts WHERE user_id = $1 AND bid > %[1]d AND bid <= %[2]d`
	if u := be.env["HOSTGATE_DATABASE_URL"]; u != "" {
		driver, dsn = "pgx", u
		for lo := 0; lo < tagHosts; lo += batch {
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO hosts (id, user_id, name, bid, listen_port, os, installed_version, status, created_at, secret_sealed)
				SELECT format('7a900000-0000-4000-8000-%%s', lpad(i::text, 12, '0')), $1, format('tagged-%%s', lpad(i::text, 6, '0')), i + 1, 23456,
				'linux 6.1.0', '1.0.0', 'offline', now() - interval '2 days' + i * interval '1 second', '\x00'::bytea
				FROM generate_series(%d, %d) i`, lo, lo+batch-1),
				fmt.Sprintf(tags, lo, lo+batch, `'k' || lpad((bid % 100)::text, 3, '0')`))
		}
		stmts = append(stmts, `VACUUM (ANALYZE) hosts`, `VACUUM (ANALYZE) host_tags`)
	} else {
		driver = "sqlite"
		dsn = "file:" + filepath.Join(be.env["HOSTGATE_DATA_DIR"], store.FileName) + "?_pragma=busy_timeout(30000)"
		for lo := 0; lo < tagHosts; lo += batch {
			stmts = append(stmts, fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT %d UNION ALL SELECT i + 1 FROM n WHERE i < %d)
				INSERT INTO hosts (id, user_id, name, bid, listen_port, os, installed_version, status, created_at, secret_sealed)
				SELECT printf('7a900000-0000-4000-8000-%%012d', i), $1, printf('tagged-%%06d', i), i + 1, 23456,
				'linux 6.1.0', '1.0.0', 'offline', strftime('%%Y-%%m-%%dT%%H:%%M:%%f000Z', 'now', '-2 days', '+' || i || ' seconds'), x'00' FROM n`,
				lo, lo+batch-1),
				fmt.Sprintf(tags, lo, lo+batch, `printf('k%03d', bid % 100)`))
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
			return fmt.Errorf("seed tagged fleet: %w", err)
		}
	}
	return nil
}
