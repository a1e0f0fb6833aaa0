package httpapi_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
)

// adminHostPage is the answer of GET /v1/admin/hosts.
type adminHostPage struct {
	Items []struct {
		ID               string `json:"id"`
		UserID           string `json:"user_id"`
		Name             string `json:"name"`
		UserEmail        string `json:"user_email"`
		OS               string `json:"os"`
		InstalledVersion string `json:"installed_version"`
		WSConnected      bool   `json:"ws_connected"`
		Online           bool   `json:"online"`
	} `json:"items"`
	Total int    `json:"total"`
	Limit int    `json:"limit"`
	Q     string `json:"q"`
}

func (p adminHostPage) names() []string {
	var out []string
	for _, h := range p.Items {
		out = append(out, h.Name)
	}
	return out
}

// TestAdminHostSearchAndFilters: GET /v1/admin/hosts finds hosts by part
// of the owner's email, the name, the id or by the start of them for a
// short query, filters by owner, liveness, OS family and agent version,
// sorts on the server, and refuses an unknown sort.
func TestAdminHostSearchAndFilters(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		adm, _ := h.Admin(t, "viewer")
		ann, bob := h.Register(t), h.Register(t)
		c := h.Client(t)
		for _, name := range []string{"alpha-web", "alpha-db"} {
			c.As(ann.AccessToken).Do("POST", "/v1/user/hosts", map[string]any{"name": name}).Want(t, 200, "")
		}
		var betaWeb struct{ ID string }
		c.As(bob.AccessToken).Do("POST", "/v1/user/hosts", map[string]any{"name": "beta-web"}).Want(t, 200, "").JSON(t, &betaWeb)
		live := h.ConnectAgent(t, bob.User.ID, nil) // named "agent"

		list := func(query string) adminHostPage {
			t.Helper()
			var p adminHostPage
			c.As(adm).Do("GET", "/v1/admin/hosts?"+query, nil).Want(t, 200, "").JSON(t, &p)
			if p.Total < len(p.Items) {
				t.Errorf("?%s: total %d below the %d items", query, p.Total, len(p.Items))
			}
			return p
		}
		want := func(query string, names ...string) adminHostPage {
			t.Helper()
			p := list(query)
			if got := p.names(); !slices.Equal(got, names) || p.Total != len(names) {
				t.Errorf("?%s: got %v (total %d), want %v", query, got, p.Total, names)
			}
			return p
		}
		annPart := strings.TrimPrefix(ann.User.Email, "user-")[:8] // part of ann's email only
		p := want("q="+url.QueryEscape(strings.ToUpper(annPart))+"&sort=name", "alpha-db", "alpha-web")
		if p.Q != strings.ToUpper(annPart) || p.Items[0].UserEmail != ann.User.Email {
			t.Errorf("q echo %q, email %q; want %q, %q", p.Q, p.Items[0].UserEmail, strings.ToUpper(annPart), ann.User.Email)
		}
		want("q=pha-w", "alpha-web")
		want("q="+betaWeb.ID[4:20], "beta-web")
		want("q=al&sort=-name", "alpha-web", "alpha-db") // short: the start of a name
		want("q=ph")                                     // short: not a part
		want("q=%25&sort=name")                          // a literal percent
		want("user_id="+bob.User.ID+"&sort=name", "agent", "beta-web")
		p = list("sort=name&limit=2&offset=1")
		if p.Total != 4 || !slices.Equal(p.names(), []string{"alpha-db", "alpha-web"}) {
			t.Errorf("sorted page: got %v total %d", p.names(), p.Total)
		}

		// The connected agent's host: online once its handshake is stored.
		eventually.True(t, 10*time.Second, "the agent's host listed online", func() bool {
			p := list("online=true")
			return len(p.Items) == 1 && p.Items[0].ID == live
		})
		p = want("online=true", "agent")
		if !p.Items[0].WSConnected || !p.Items[0].Online {
			t.Errorf("online host: ws_connected %v online %v, want both true", p.Items[0].WSConnected, p.Items[0].Online)
		}
		want("online=false&sort=name", "alpha-db", "alpha-web", "beta-web")
		want("online=true&status=pending")
		family, _, _ := strings.Cut(p.Items[0].OS, " ")
		want("os="+url.QueryEscape(family), "agent")
		want("os=plan9")
		want("agent_version="+url.QueryEscape(p.Items[0].InstalledVersion), "agent")
		want("agent_version=0.0.0-none")

		for _, bad := range []string{"sort=bid", "sort=-", "online=yes", "status=gone"} {
			c.As(adm).Do("GET", "/v1/admin/hosts?"+bad, nil).Want(t, 400, "invalid_query")
		}
	})
}

// TestUserHostSearchStaysInTenant: the console's q (indexed, over every
// user's hosts) only ever answers the caller's hosts.
func TestUserHostSearchStaysInTenant(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		ann, bob := h.Register(t), h.Register(t)
		c := h.Client(t)
		c.As(ann.AccessToken).Do("POST", "/v1/user/hosts", map[string]any{"name": "shared-name"}).Want(t, 200, "")
		var bobs struct{ ID string }
		c.As(bob.AccessToken).Do("POST", "/v1/user/hosts", map[string]any{"name": "shared-name-2"}).Want(t, 200, "").JSON(t, &bobs)
		for _, q := range []string{"shared", "sh", "name-2", bobs.ID} {
			var p struct {
				Items []struct {
					Name   string `json:"name"`
					UserID string `json:"user_id"`
				}
				Total int
			}
			c.As(ann.AccessToken).Do("GET", "/v1/user/hosts?q="+url.QueryEscape(q), nil).Want(t, 200, "").JSON(t, &p)
			for _, it := range p.Items {
				if it.UserID != ann.User.ID {
					t.Errorf("q=%s: ann sees %s's host %s", q, it.UserID, it.Name)
				}
			}
			if wantN := map[bool]int{true: 1, false: 0}[q == "shared" || q == "sh"]; p.Total != wantN || len(p.Items) != wantN {
				t.Errorf("q=%s: got %d items total %d, want %d", q, len(p.Items), p.Total, wantN)
			}
		}
	})
}

// TestAdminUserSearchAndSort: GET /v1/admin/users finds users by part of
// the email or display name, sorts on the server, and refuses an unknown
// sort.
func TestAdminUserSearchAndSort(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		adm, _ := h.Admin(t, "viewer")
		a, b := h.Register(t), h.Register(t)
		type page struct {
			Items []struct{ ID, Email string }
			Total int
		}
		get := func(query string) page {
			t.Helper()
			var p page
			h.Client(t).As(adm).Do("GET", "/v1/admin/users?"+query, nil).Want(t, 200, "").JSON(t, &p)
			return p
		}
		part := strings.TrimPrefix(a.User.Email, "user-")[:6]
		if p := get("q=" + strings.ToUpper(part)); p.Total != 1 || len(p.Items) != 1 || p.Items[0].ID != a.User.ID {
			t.Errorf("q=%s: got %+v, want only %s", part, p, a.User.Email)
		}
		emails := []string{a.User.Email, b.User.Email}
		slices.Sort(emails)
		for sort, want := range map[string][]string{"email": emails, "-email": {emails[1], emails[0]}} {
			p := get("q=user-&sort=" + sort)
			var got []string
			for _, it := range p.Items {
				got = append(got, it.Email)
			}
			if !slices.Equal(got, want) || p.Total != 2 {
				t.Errorf("sort=%s: got %v total %d, want %v", sort, got, p.Total, want)
			}
		}
		if p := get("q=us"); p.Total != 2 { // short: the start of an email
			t.Errorf("q=us: total %d, want 2", p.Total)
		}
		h.Client(t).As(adm).Do("GET", "/v1/admin/users?sort=password_hash", nil).Want(t, 400, "invalid_query")
	})
}

// TestAdminRechargeFilters: GET /v1/admin/recharges applies status and
// user_id (and limit, offset: TestEveryLimitLimits).
func TestAdminRechargeFilters(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		adm, _ := h.Admin(t, "finance")
		a, b := h.Register(t), h.Register(t)
		ctx := t.Context()
		paid, err := h.Billing.CreateRecharge(ctx, a.User.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := h.Billing.ApplyPayment(ctx, "dummy", paid.OrderNo, paid.AmountFen); err != nil {
			t.Fatal(err)
		}
		for _, u := range []string{a.User.ID, b.User.ID} {
			if _, err := h.Billing.CreateRecharge(ctx, u, 20); err != nil {
				t.Fatal(err)
			}
		}
		count := func(query string) int {
			t.Helper()
			var p struct {
				Items []struct{ ID, Status string }
				Total int
			}
			h.Client(t).As(adm).Do("GET", "/v1/admin/recharges?"+query, nil).Want(t, 200, "").JSON(t, &p)
			if p.Total < len(p.Items) {
				t.Errorf("?%s: total %d below %d items", query, p.Total, len(p.Items))
			}
			return p.Total
		}
		for query, want := range map[string]int{
			"": 3, "status=paid": 1, "status=pending": 2, "user_id=" + a.User.ID: 2,
			"user_id=" + b.User.ID + "&status=paid": 0, "offset=2": 3,
		} {
			if got := count(query); got != want {
				t.Errorf("?%s: total %d, want %d", query, got, want)
			}
		}
		h.Client(t).As(adm).Do("GET", "/v1/admin/recharges?status=lost", nil).Want(t, 400, "invalid_query")
	})
}
