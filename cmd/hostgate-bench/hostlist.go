package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"hostgate/internal/loadtest"
)

// hostListBig is the large fleet of the hostlist scenario: one customer's
// hosts, created in bulk through the hosts service (hostgate-fleet
// provision), not through HTTP.
const hostListBig = 20000

// hostListScenario: GET /v1/user/hosts from the console's token, for a
// customer with 20 hosts and one with 20,000 (issue 17), on each backend:
// the default page (limit 50, newest first), a search by name, and the
// unpaged list of the small customer, and the page at item 10,000 by
// offset and by cursor (keyset paging). Sequential calls for b.dur each;
// p50 and p95 of the 20,000-host calls are shown against the same figure
// of the 20-host page.
func (b *bench) hostListScenario(ctx context.Context) error {
	return b.onEachBackend(func(be *backend) error {
		h, err := b.startHub(ctx, be)
		if err != nil {
			return err
		}
		defer h.stop()
		small, err := b.newAccount(h)
		if err != nil {
			return err
		}
		for i := range 20 {
			if err := call("POST", h.url+"/v1/user/hosts", small.access, map[string]any{"name": fmt.Sprintf("small-%02d", i)}, nil); err != nil {
				return err
			}
		}
		big, err := b.newAccount(h)
		if err != nil {
			return err
		}
		start := time.Now()
		creds := filepath.Join(b.work, "hostlist-"+be.name+".jsonl")
		if err := b.provision(ctx, h.env, hostListBig, big.userID, creds); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "  hostlist %s: %d hosts provisioned in %v\n", be.name, hostListBig, time.Since(start).Round(time.Second))
		if err := settleTables(ctx, be); err != nil {
			return err
		}
		list := h.url + "/v1/user/hosts"
		b.measureGet(ctx, "host list, 20 hosts: page of 50", be.name, "hostlist", list+"?limit=50", small.access)
		b.measureGet(ctx, "host list, 20 hosts: no parameters (all)", be.name, "", list, small.access)
		b.measureGet(ctx, "host list, 20,000 hosts: page of 50", be.name, "hostlist", list+"?limit=50", big.access)
		b.measureGet(ctx, "host list, 20,000 hosts: page of 50 at offset 10,000", be.name, "hostlist", list+"?limit=50&offset=10000", big.access)
		// The same depth by keyset paging: the next_cursor of the page
		// ending at item 10,000, which the page at offset 10,000 continues.
		var at struct {
			NextCursor string `json:"next_cursor"`
		}
		if err := call("GET", list+"?limit=50&offset=9950", big.access, nil, &at); err != nil {
			return err
		}
		if at.NextCursor == "" {
			return fmt.Errorf("hostlist %s: the page at offset 9,950 has no next_cursor", be.name)
		}
		b.measureGet(ctx, "host list, 20,000 hosts: page of 50 at 10,000 via cursor", be.name, "hostlist",
			list+"?limit=50&cursor="+url.QueryEscape(at.NextCursor), big.access)
		b.measureGet(ctx, "host list, 20,000 hosts: search q=fleet-0123", be.name, "hostlist", list+"?q=fleet-0123", big.access)
		b.measureGet(ctx, "host list, 20,000 hosts: sort=name", be.name, "hostlist", list+"?sort=name", big.access)
		return nil
	})
}

// settleTables brings PostgreSQL's statistics and visibility map (of hosts
// and of its search text, host_search) up to date after the bulk insert, as autovacuum does within a minute or so
// of it: a fleet of 20,000 hosts is not inserted a second before it is
// listed, and without statistics the planner takes hosts for a tiny table.
func settleTables(ctx context.Context, be *backend) error {
	url := be.env["HOSTGATE_DATABASE_URL"]
	if url == "" {
		return nil
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, table := range []string{"hosts", "host_search"} {
		if _, err := db.ExecContext(ctx, "VACUUM (ANALYZE) "+table); err != nil {
			return err
		}
	}
	return nil
}

// measureGet records p50 and p95 of sequential GETs of url with token.
// A scenario whose floor is "" sets the floor named floor for its backend
// the first time; later ones are shown against it.
func (b *bench) measureGet(ctx context.Context, scenario, backend, floor, url, token string) {
	client := &http.Client{Timeout: 30 * time.Second}
	get := func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%d %s", resp.StatusCode, body)
		}
		return nil
	}
	r := loadtest.Run(ctx, 1, b.dur, 20, get)
	if r.Errors > 0 {
		fmt.Fprintf(os.Stderr, "  %s: %d errors, first: %s\n", scenario, r.Errors, r.FirstError)
	}
	for _, m := range []struct {
		name string
		v    time.Duration
	}{{"p50", r.P50}, {"p95", r.P95}} {
		rw := row{scenario: scenario, backend: backend, metric: m.name, value: ms(m.v), unit: "ms", better: "lower"}
		if floor != "" {
			key := floor + " " + backend + " " + m.name
			if _, ok := b.floors[key]; ok {
				rw.floor = key
			} else {
				b.floors[key] = rw.value
			}
		}
		b.add(rw)
	}
}
