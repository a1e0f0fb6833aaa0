package httpapi_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"hostgate/internal/hubtest"
)

type cursorPage struct {
	Items []struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		UserID string `json:"user_id"`
	} `json:"items"`
	Total      int    `json:"total"`
	Limit      int    `json:"limit"`
	Offset     int    `json:"offset"`
	NextCursor string `json:"next_cursor"`
}

// walkPages follows next_cursor from the page at first to the last page,
// and returns every item's name; each page but the last is full.
func walkPages(t *testing.T, c *hubtest.Client, first string) (names, ids []string) {
	t.Helper()
	path := first
	for range 100 {
		var p cursorPage
		c.Do("GET", path, nil).Want(t, 200, "").JSON(t, &p)
		for _, it := range p.Items {
			names, ids = append(names, it.Name), append(ids, it.ID)
		}
		if p.NextCursor == "" {
			return names, ids
		}
		if len(p.Items) != p.Limit || p.Offset != 0 && strings.Contains(path, "cursor=") {
			t.Fatalf("%s: %d items of %d, offset %d, and a next_cursor", path, len(p.Items), p.Limit, p.Offset)
		}
		u, _ := url.Parse(path)
		q := u.Query()
		q.Del("offset")
		q.Set("cursor", p.NextCursor)
		path = u.Path + "?" + q.Encode()
	}
	t.Fatalf("%s: the walk does not end", first)
	return nil, nil
}

// TestHostListCursor: the user, client-API and admin host lists walk by
// next_cursor in their order, every host once; a cursor with an offset is
// invalid_query, a bad or foreign one invalid_cursor, never a 500; and a
// cursor shows its holder only their own hosts.
func TestHostListCursor(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		ann, bob := h.Register(t), h.Register(t)
		c, cb := h.Client(t).As(ann.AccessToken), h.Client(t).As(bob.AccessToken)
		var want []string
		for i := range 7 {
			name := fmt.Sprintf("ann-%d", i%4) // names in pairs: ties broken by id
			c.Do("POST", "/v1/user/hosts", map[string]any{"name": name}).Want(t, 200, "")
			want = append(want, name)
		}
		bobs := map[string]bool{}
		for i := range 3 {
			var hst struct{ ID string }
			cb.Do("POST", "/v1/user/hosts", map[string]any{"name": fmt.Sprintf("bob-%d", i)}).Want(t, 200, "").JSON(t, &hst)
			bobs[hst.ID] = true
		}
		slices.Sort(want)

		for _, sort := range []string{"name", "-name", "created_at", "-created_at", "last_seen_at", "-last_seen_at"} {
			var all cursorPage
			c.Do("GET", "/v1/user/hosts?limit=200&sort="+sort, nil).Want(t, 200, "").JSON(t, &all)
			if all.NextCursor != "" {
				t.Errorf("sort %s: the only page has next_cursor %q", sort, all.NextCursor)
			}
			var wantIDs []string
			for _, it := range all.Items {
				wantIDs = append(wantIDs, it.ID)
			}
			if _, ids := walkPages(t, c, "/v1/user/hosts?limit=2&sort="+sort); !slices.Equal(ids, wantIDs) {
				t.Errorf("sort %s: walked %v, want %v", sort, ids, wantIDs)
			}
		}
		if names, _ := walkPages(t, c, "/v1/user/hosts?limit=3&sort=name&offset=1"); !slices.Equal(names, want[1:]) {
			t.Errorf("from offset 1 by cursor: %v, want %v", names, want[1:])
		}

		var p cursorPage
		c.Do("GET", "/v1/user/hosts?limit=2&sort=name", nil).Want(t, 200, "").JSON(t, &p)
		cur := url.QueryEscape(p.NextCursor)
		c.Do("GET", "/v1/user/hosts?limit=2&sort=name&offset=2&cursor="+cur, nil).Want(t, 400, "invalid_query")
		for _, bad := range []string{
			"/v1/user/hosts?sort=-name&cursor=" + cur,                     // another order
			"/v1/user/hosts?sort=name&q=ann&cursor=" + cur,                // another filter
			"/v1/user/billing/events?cursor=" + cur,                       // another list
			"/v1/user/hosts?sort=name&cursor=not-a-cursor",                // not one
			"/v1/user/hosts?sort=name&cursor=" + strings.Repeat("A", 513), // too long
			"/v1/user/hosts?sort=name&cursor=" + cur[:len(cur)-2],         // cut short
		} {
			r := c.Do("GET", bad, nil).Want(t, 400, "invalid_cursor")
			var e struct{ Message string }
			r.JSON(t, &e)
			if !strings.Contains(e.Message, "cursor") {
				t.Errorf("%s: message %q does not name the cursor", bad, e.Message)
			}
		}
		// The same query with a smaller limit keeps the cursor.
		c.Do("GET", "/v1/user/hosts?sort=name&limit=1&cursor="+cur, nil).Want(t, 200, "")

		// Bob with Ann's cursor: the page after that position in his own
		// hosts, never hers.
		var theirs cursorPage
		cb.Do("GET", "/v1/user/hosts?limit=2&sort=name&cursor="+cur, nil).Want(t, 200, "").JSON(t, &theirs)
		if len(theirs.Items) == 0 {
			t.Errorf("bob with ann's cursor: no hosts, want his after ann-0")
		}
		for _, it := range theirs.Items {
			if !bobs[it.ID] {
				t.Errorf("bob with ann's cursor sees %s (%s)", it.Name, it.ID)
			}
		}

		// The admin list walks all ten hosts by owner email, then name.
		adm, _ := h.Admin(t, "viewer")
		ca := h.Client(t).As(adm)
		var every cursorPage
		ca.Do("GET", "/v1/admin/hosts?limit=200&sort=-user_email", nil).Want(t, 200, "").JSON(t, &every)
		var everyIDs []string
		for _, it := range every.Items {
			everyIDs = append(everyIDs, it.ID)
		}
		if _, ids := walkPages(t, ca, "/v1/admin/hosts?limit=3&sort=-user_email"); len(ids) != 10 || !slices.Equal(ids, everyIDs) {
			t.Errorf("admin walk: %v, want %v", ids, everyIDs)
		}
		ca.Do("GET", "/v1/admin/hosts?sort=name&cursor="+cur, nil).Want(t, 400, "invalid_cursor")
	})
}

// TestEveryCursorIsChecked: every operation the OpenAPI document gives a
// cursor parameter decodes it (a bad one is 400 invalid_cursor, with an
// offset 400 invalid_query) before it reads anything; an operation whose
// input hid PageParams' resolver would ignore the cursor instead. Each
// list's first page answers next_cursor when more items follow (the
// host list's own test walks them).
func TestEveryCursorIsChecked(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	c := h.Client(t)
	var doc struct {
		Paths map[string]map[string]struct {
			Security   []map[string]any `json:"security"`
			Parameters []struct {
				Name string `json:"name"`
				In   string `json:"in"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	c.Do("GET", "/v1/openapi.json", nil).Want(t, 200, "").JSON(t, &doc)
	u := h.Register(t)
	adm, _ := h.Admin(t, "owner")
	key := apiKey(t, h, u.AccessToken)
	n := 0
	for path, ops := range doc.Paths {
		op, ok := ops["get"]
		if !ok || !slices.ContainsFunc(op.Parameters, func(p struct {
			Name string `json:"name"`
			In   string `json:"in"`
		}) bool {
			return p.Name == "cursor" && p.In == "query"
		}) {
			continue
		}
		n++
		tok := u.AccessToken
		switch {
		case strings.HasPrefix(path, "/v1/admin/"):
			tok = adm
		case strings.HasPrefix(path, "/v1/api/"):
			tok = key
		}
		p := strings.NewReplacer("{id}", "00000000-0000-4000-8000-000000000000").Replace(path)
		sep := "?"
		if strings.HasPrefix(path, "/v1/user/hosts") || strings.HasPrefix(path, "/v1/api/hosts") {
			p += "?limit=5"
			sep = "&"
		}
		c.As(tok).Do("GET", p+sep+"cursor=AQ", nil).Want(t, 400, "invalid_cursor")
		c.As(tok).Do("GET", p+sep+"offset=1&cursor=AQ", nil).Want(t, 400, "invalid_query")
	}
	t.Logf("%d operations take a cursor", n)
	if n < 10 {
		t.Errorf("%d operations take a cursor, want every paged list (at least 10)", n)
	}
}
