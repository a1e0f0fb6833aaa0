package httpapi_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"hostgate/internal/hubtest"
)

type hostPage struct {
	Items  []host `json:"items"`
	Total  int    `json:"total"`
	Limit  int    `json:"limit"`
	Offset int    `json:"offset"`
}

func pageNames(p hostPage) []string {
	var names []string
	for _, h := range p.Items {
		names = append(names, h.Name)
	}
	return names
}

// TestUserHostListQuery checks GET /v1/user/hosts: with no parameters
// the answer before paging ({items}, every host); with any, one page in
// the envelope, searched, filtered and sorted, with live state per item.
// Names are chosen to sort alike under any collation (docs/hosts.md).
func TestUserHostListQuery(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		ann, bob := h.Register(t), h.Register(t)
		c := h.Client(t).As(ann.AccessToken)
		for _, name := range []string{"web-1", "DB-1", "web-2"} {
			c.Do("POST", "/v1/user/hosts", map[string]any{"name": name}).Want(t, 200, "")
		}
		live := h.ConnectAgent(t, ann.User.ID, nil) // named "agent", newest
		var bobs host
		h.Client(t).As(bob.AccessToken).Do("POST", "/v1/user/hosts", map[string]any{"name": "web-bob"}).Want(t, 200, "").JSON(t, &bobs)

		var plain map[string]any
		c.Do("GET", "/v1/user/hosts", nil).Want(t, 200, "").JSON(t, &plain)
		if len(plain) != 1 || len(plain["items"].([]any)) != 4 {
			t.Errorf("no parameters: got %v, want only items with 4 hosts", plain)
		}

		get := func(query string) hostPage {
			t.Helper()
			var p hostPage
			c.Do("GET", "/v1/user/hosts?"+query, nil).Want(t, 200, "").JSON(t, &p)
			return p
		}
		for _, tt := range []struct {
			query             string
			want              []string
			total, lim, offst int
		}{
			{"limit=50", []string{"agent", "web-2", "DB-1", "web-1"}, 4, 50, 0},
			{"q=", []string{"agent", "web-2", "DB-1", "web-1"}, 4, 50, 0},
			{"q=WEB&sort=name", []string{"web-1", "web-2"}, 2, 50, 0},
			{"q=" + live, []string{"agent"}, 1, 50, 0},
			{"q=" + bobs.ID, nil, 0, 50, 0},
			{"q=bob", nil, 0, 50, 0},
			{"sort=created_at&limit=2&offset=1", []string{"DB-1", "web-2"}, 4, 2, 1},
			{"sort=-created_at&offset=4", nil, 4, 50, 4},
			{"status=pending&sort=-name", []string{"web-2", "web-1", "DB-1"}, 3, 50, 0},
			{"sort=-last_seen_at&limit=1", []string{"agent"}, 4, 1, 0},
		} {
			p := get(tt.query)
			if g := pageNames(p); !slices.Equal(g, tt.want) || p.Total != tt.total || p.Limit != tt.lim || p.Offset != tt.offst {
				t.Errorf("?%s: got %v total %d limit %d offset %d, want %v total %d limit %d offset %d",
					tt.query, g, p.Total, p.Limit, p.Offset, tt.want, tt.total, tt.lim, tt.offst)
			}
			for _, it := range p.Items {
				if it.Online != (it.ID == live) {
					t.Errorf("?%s: host %s online = %v, want %v", tt.query, it.Name, it.Online, it.ID == live)
				}
			}
		}

		for _, q := range []string{"limit=0", "limit=201", "limit=x", "offset=-1", "offset=100001",
			"status=connected", "sort=bid", "sort=+name", fmt.Sprintf("q=%0255d", 0)} {
			var e struct{ Message string }
			c.Do("GET", "/v1/user/hosts?"+q, nil).Want(t, 400, "invalid_query").JSON(t, &e)
			if name, _, _ := strings.Cut(q, "="); !strings.Contains(e.Message, name) {
				t.Errorf("?%s: message %q does not name %s", q, e.Message, name)
			}
		}
		// Another user sees none of these hosts, paged or not.
		var other hostPage
		h.Client(t).As(bob.AccessToken).Do("GET", "/v1/user/hosts?q=web", nil).Want(t, 200, "").JSON(t, &other)
		if g := pageNames(other); !slices.Equal(g, []string{"web-bob"}) || other.Total != 1 {
			t.Errorf("bob ?q=web: got %v total %d, want only web-bob", g, other.Total)
		}
	})
}
