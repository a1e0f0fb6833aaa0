package httpapi_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/audit"
	"hostgate/internal/hubtest"
	"hostgate/internal/versions"
)

// limitSeed is what the seeded hub holds, for the paths of limitRoutes.
type limitSeed struct {
	admin, user string // access tokens
	userID      string // the user's id (two hosts, two recharges, two ledger entries)
	hostID      string // one of the user's hosts (two events, two metrics samples)
	key         string // an API key of the user (two tags, two saved filters)
	jobID       string // one of the user's two jobs, over both hosts
	scheduleID  string // one of the user's two schedules
}

// limitRoute is how TestEveryLimitLimits calls one route with a limit
// parameter: the concrete path, the token, and the fewest items the seed
// gives it (2 where the seed can make two, so that limit=1 has something
// to cut).
type limitRoute struct {
	path     func(limitSeed) string
	admin    bool
	apiKey   bool // called with the user's API key (a /v1/api route)
	minItems int
}

// limitRoutes has a case for every GET route whose OpenAPI operation has
// a limit query parameter, keyed "GET /path" as the document names it. A
// new route with a limit fails TestEveryLimitLimits until it has a case
// here (and its items are seeded in seedLimits when they can be).
var limitRoutes = map[string]limitRoute{
	"GET /v1/admin/admins":                    {path: fixed("/v1/admin/admins"), admin: true, minItems: 2},
	"GET /v1/admin/audit-logs":                {path: fixed("/v1/admin/audit-logs"), admin: true, minItems: 2},
	"GET /v1/admin/gateway-versions":          {path: fixed("/v1/admin/gateway-versions"), admin: true, minItems: 2},
	"GET /v1/admin/hosts":                     {path: fixed("/v1/admin/hosts"), admin: true, minItems: 2},
	"GET /v1/admin/hosts/{id}/events":         {path: hostPath("/v1/admin/hosts/%s/events"), admin: true, minItems: 2},
	"GET /v1/admin/hosts/{id}/metrics":        {path: hostPath("/v1/admin/hosts/%s/metrics"), admin: true, minItems: 2},
	"GET /v1/admin/recharges":                 {path: fixed("/v1/admin/recharges"), admin: true, minItems: 2},
	"GET /v1/admin/users":                     {path: fixed("/v1/admin/users"), admin: true, minItems: 2},
	"GET /v1/admin/users/{id}/billing-events": {path: userPath("/v1/admin/users/%s/billing-events"), admin: true, minItems: 2},
	"GET /v1/user/billing/events":             {path: fixed("/v1/user/billing/events"), minItems: 2},
	"GET /v1/user/billing/recharges":          {path: fixed("/v1/user/billing/recharges"), minItems: 2},
	"GET /v1/user/hosts":                      {path: fixed("/v1/user/hosts"), minItems: 2},
	"GET /v1/user/tags":                       {path: fixed("/v1/user/tags"), minItems: 2},
	"GET /v1/user/filters":                    {path: fixed("/v1/user/filters"), minItems: 2},
	"GET /v1/api/hosts":                       {path: fixed("/v1/api/hosts"), apiKey: true, minItems: 2},
	"GET /v1/api/tags":                        {path: fixed("/v1/api/tags"), apiKey: true, minItems: 2},
	"GET /v1/api/filters":                     {path: fixed("/v1/api/filters"), apiKey: true, minItems: 2},
	"GET /v1/user/hosts/{id}/metrics":         {path: hostPath("/v1/user/hosts/%s/metrics"), minItems: 2},
	"GET /v1/api/jobs":                        {path: fixed("/v1/api/jobs"), apiKey: true, minItems: 2},
	"GET /v1/user/jobs":                       {path: fixed("/v1/user/jobs"), minItems: 2},
	"GET /v1/api/jobs/{id}/results":           {path: jobPath("/v1/api/jobs/%s/results"), apiKey: true, minItems: 2},
	"GET /v1/user/jobs/{id}/results":          {path: jobPath("/v1/user/jobs/%s/results"), minItems: 2},
	// Deliveries need a webhook target that answers; none is seeded.
	"GET /v1/user/hosts/{id}/webhook-deliveries": {path: hostPath("/v1/user/hosts/%s/webhook-deliveries"), minItems: 0},
	"GET /v1/user/schedules":                     {path: fixed("/v1/user/schedules"), minItems: 2},
	"GET /v1/api/schedules":                      {path: fixed("/v1/api/schedules"), apiKey: true, minItems: 2},
	// No run is fired in the seed; no user-level delivery is queued.
	"GET /v1/user/schedules/{id}/runs": {path: schedulePath("/v1/user/schedules/%s/runs"), minItems: 0},
	"GET /v1/api/schedules/{id}/runs":  {path: schedulePath("/v1/api/schedules/%s/runs"), apiKey: true, minItems: 0},
	"GET /v1/user/webhook-deliveries":  {path: fixed("/v1/user/webhook-deliveries"), minItems: 0},
	"GET /v1/api/webhook-deliveries":   {path: fixed("/v1/api/webhook-deliveries"), apiKey: true, minItems: 0},
}

func schedulePath(format string) func(limitSeed) string {
	return func(s limitSeed) string { return fmt.Sprintf(format, s.scheduleID) }
}

func fixed(p string) func(limitSeed) string { return func(limitSeed) string { return p } }

func userPath(format string) func(limitSeed) string {
	return func(s limitSeed) string { return fmt.Sprintf(format, s.userID) }
}

func jobPath(format string) func(limitSeed) string {
	return func(s limitSeed) string { return fmt.Sprintf(format, s.jobID) }
}

func hostPath(format string) func(limitSeed) string {
	return func(s limitSeed) string { return fmt.Sprintf(format, s.hostID) }
}

// seedLimits gives each list of limitRoutes its minItems.
func seedLimits(t *testing.T, h *hubtest.Hub) limitSeed {
	ctx := t.Context()
	adm, _ := h.Admin(t, "owner")
	h.Admin(t, "viewer") // a second admin for GET /v1/admin/admins
	u := h.Register(t)
	other := h.Register(t)
	s := limitSeed{admin: adm, user: u.AccessToken, userID: u.User.ID}
	c := h.Client(t)
	for i := range 2 {
		var host struct{ ID string }
		c.As(s.user).Do("POST", "/v1/user/hosts", map[string]any{"name": fmt.Sprintf("limit-%d", i)}).Want(t, 200, "").JSON(t, &host)
		if s.hostID == "" {
			s.hostID = host.ID
		}
		if _, err := h.Billing.CreateRecharge(ctx, s.userID, 10); err != nil {
			t.Fatal(err)
		}
		c.As(adm).Do("POST", "/v1/admin/users/"+s.userID+"/balance/adjust", map[string]any{"tokens": 5, "reason": "limit test"}).Want(t, 200, "")
		if _, err := h.Versions.Publish(ctx, audit.Actor{AdminID: "setup"}, versions.Publish{Version: fmt.Sprintf("0.%d.1", 900+i),
			ExeURL: "https://dl.example.com/a.exe", ExeSHA256: strings.Repeat("ab", 32), ExeSizeBytes: 10}); err != nil {
			t.Fatal(err)
		}
		h.Hosts.RecordMetrics(s.hostID, agentproto.Metrics{CPUPct: float64(i)})
		if err := h.Hosts.FlushMetrics(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Two events of the host (and audit entries): a ban and an unban.
	c.As(adm).Do("POST", "/v1/admin/hosts/"+s.hostID+"/ban", nil).Want(t, 200, "")
	c.As(adm).Do("POST", "/v1/admin/hosts/"+s.hostID+"/unban", nil).Want(t, 200, "")
	// Two jobs over both hosts (offline: their runs are skipped).
	s.key = apiKey(t, h, s.user)
	var hosts struct{ Items []struct{ ID string } }
	c.As(s.user).Do("GET", "/v1/user/hosts", nil).Want(t, 200, "").JSON(t, &hosts)
	for range 2 {
		var j struct{ ID string }
		c.As(s.key).Do("POST", "/v1/api/jobs", map[string]any{"target": map[string]any{"host_ids": []string{hosts.Items[0].ID, hosts.Items[1].ID}},
			"operation": map[string]any{"controls": 8192, "path": "/bin/sh"}}).Want(t, 201, "").JSON(t, &j)
		s.jobID = j.ID
	}
	c.As(adm).Do("POST", "/v1/admin/users/"+other.User.ID+"/suspend", nil).Want(t, 200, "")
	// Two tags and two saved filters.
	c.As(s.user).Do("PUT", "/v1/user/hosts/"+s.hostID+"/tags", map[string]any{"tags": map[string]string{"env": "prod", "role": ""}}).Want(t, 200, "")
	for i := range 2 {
		c.As(s.user).Do("POST", "/v1/user/filters", map[string]any{"name": fmt.Sprintf("limit-%d", i), "query": map[string]any{"tags": []string{"env"}}}).Want(t, 201, "")
	}
	s.key = apiKey(t, h, s.user)
	for range 2 {
		var sc struct{ ID string }
		c.As(s.user).Do("POST", "/v1/user/schedules", map[string]any{"name": "nightly", "cron": "0 3 * * *",
			"job": map[string]any{"target": map[string]any{"tags": []string{"env=prod"}},
				"operation": map[string]any{"controls": 8192, "path": "/bin/sh", "data": map[string]any{"args": "-c uptime"}}}}).Want(t, 201, "").JSON(t, &sc)
		s.scheduleID = sc.ID
	}
	return s
}

// TestEveryLimitLimits: on every route with a limit query parameter,
// limit=1 answers at most one item (exactly one where two are seeded), and
// a limit out of range or not a number is 400 invalid_query. It walks the
// OpenAPI document, so a parameter huma does not see (one of a struct
// embedded in an embedded struct, as GET /v1/admin/recharges once had) or
// a route missing from limitRoutes fails here.
func TestEveryLimitLimits(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		var doc struct {
			Paths map[string]map[string]struct {
				Parameters []struct {
					Name string `json:"name"`
					In   string `json:"in"`
				} `json:"parameters"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(h.Client(t).Do("GET", "/v1/openapi.json", nil).Want(t, 200, "").Body, &doc); err != nil {
			t.Fatal(err)
		}
		var routes []string
		for path, ops := range doc.Paths {
			for method, op := range ops {
				if slices.ContainsFunc(op.Parameters, func(p struct {
					Name string `json:"name"`
					In   string `json:"in"`
				}) bool {
					return p.In == "query" && p.Name == "limit"
				}) {
					routes = append(routes, strings.ToUpper(method)+" "+path)
				}
			}
		}
		slices.Sort(routes)
		if len(routes) == 0 {
			t.Fatal("no route of the OpenAPI document has a limit parameter")
		}
		for _, r := range routes {
			if _, ok := limitRoutes[r]; !ok {
				t.Errorf("%s has a limit query parameter but no case in limitRoutes (internal/httpapi/limits_test.go): "+
					"add its path (and seed its items in seedLimits) so that its limit is tested", r)
			}
		}
		for r := range limitRoutes {
			if !slices.Contains(routes, r) {
				t.Errorf("limitRoutes has %s, which has no limit parameter in the OpenAPI document", r)
			}
		}
		s := seedLimits(t, h)
		for _, r := range routes {
			lr, ok := limitRoutes[r]
			if !ok {
				continue
			}
			method, _, _ := strings.Cut(r, " ")
			c := h.Client(t).As(s.user)
			if lr.admin {
				c = h.Client(t).As(s.admin)
			}
			if lr.apiKey {
				c = h.Client(t).As(s.key)
			}
			path := lr.path(s)
			items := func(limit string) int {
				t.Helper()
				var out struct{ Items []json.RawMessage }
				c.Do(method, path+"?limit="+limit, nil).Want(t, 200, "").JSON(t, &out)
				return len(out.Items)
			}
			t.Run(r, func(t *testing.T) {
				if lr.minItems >= 2 {
					if n := items("200"); n < lr.minItems {
						t.Fatalf("%s has %d items, the seed should give it at least %d", path, n, lr.minItems)
					}
				}
				want := min(lr.minItems, 1)
				if n := items("1"); n > 1 || n < want {
					t.Errorf("%s?limit=1: %d items, want %d", path, n, want)
				}
				for _, bad := range []string{"0", "abc", "100000", "-1"} {
					c.Do(method, path+"?limit="+bad, nil).Want(t, 400, "invalid_query")
				}
			})
		}
	})
}
