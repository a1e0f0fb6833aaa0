package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"hostgate/internal/admin"
	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
	"hostgate/internal/recent"
)

// adminAuth is the decoded admin login answer.
type adminAuth struct {
	AccessToken  string     `json:"access_token"`
	RefreshToken string     `json:"refresh_token"`
	AccessTTL    int        `json:"access_ttl_s"`
	User         adminValue `json:"user"`
	Admin        adminValue `json:"admin"`
}

type adminValue struct {
	ID          string `json:"id"`
	Username    string `json:"username"`
	Role        string `json:"role"`
	Status      string `json:"status"`
	CreatedAt   string `json:"created_at"`
	LastLoginAt string `json:"last_login_at"`
}

// newAdmin creates an admin of role and signs it in.
func newAdmin(t *testing.T, h *hubtest.Hub, role string) adminAuth {
	t.Helper()
	name := "adm-" + strings.ToLower(hubtest.UniqueEmail()[5:17])
	if _, err := h.Admins.Create(t.Context(), name, hubtest.Password, admin.Role(role)); err != nil {
		t.Fatal(err)
	}
	return adminLogin(t, h, name)
}

func adminLogin(t *testing.T, h *hubtest.Hub, name string) adminAuth {
	t.Helper()
	var a adminAuth
	h.Client(t).Do("POST", "/v1/admin/auth/login", map[string]string{"username": name, "password": hubtest.Password}).
		Want(t, 200, "").JSON(t, &a)
	return a
}

// adminBrowserPost posts as the admin console would: with the admin
// cookies given (name → value) and headers.
func adminBrowserPost(t *testing.T, h *hubtest.Hub, path, body string, cookies, hdr map[string]string) *hubtest.Response {
	t.Helper()
	req, err := http.NewRequest("POST", h.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return h.Client(t).Send(req)
}

// postWith posts body with the bearer tok and the extra headers.
func postWith(t *testing.T, h *hubtest.Hub, tok, path string, body string, hdr map[string]string) *hubtest.Response {
	t.Helper()
	req, err := http.NewRequest("POST", h.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return h.Client(t).Send(req)
}

// TestAdminLoginAnswer: the login answer's form and cookies, and
// last_login_at.
func TestAdminLoginAnswer(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	name := "adm-answer"
	if _, err := h.Admins.Create(t.Context(), name, hubtest.Password, "finance"); err != nil {
		t.Fatal(err)
	}
	r := h.Client(t).Do("POST", "/v1/admin/auth/login", map[string]string{"username": name, "password": hubtest.Password}).Want(t, 200, "")
	var a adminAuth
	r.JSON(t, &a)
	if a.AccessToken == "" || a.RefreshToken == "" || a.AccessTTL != 3600 || a.Admin != a.User ||
		a.Admin.Username != name || a.Admin.Role != "finance" || a.Admin.Status != "active" || a.Admin.LastLoginAt == "" {
		t.Errorf("login answer = %+v", a)
	}
	cs := setCookies(t, r)
	at, rt := cs["gw_admin_at"], cs["gw_admin_rt"]
	if at == nil || at.Value != a.AccessToken || at.Path != "/" || !at.HttpOnly || at.MaxAge != 3600 || at.SameSite != http.SameSiteStrictMode {
		t.Errorf("gw_admin_at = %+v", at)
	}
	if rt == nil || rt.Value != a.RefreshToken || rt.Path != "/v1/admin/auth/" || !rt.HttpOnly || rt.MaxAge != 30*24*3600 {
		t.Errorf("gw_admin_rt = %+v", rt)
	}
	var me adminValue
	h.Client(t).As(a.AccessToken).Do("GET", "/v1/admin/me", nil).Want(t, 200, "").JSON(t, &me)
	if me.ID != a.Admin.ID || me.Role != "finance" || me.LastLoginAt == "" {
		t.Errorf("GET /v1/admin/me = %+v", me)
	}
	h.Client(t).Do("GET", "/v1/admin/me", nil).Want(t, 401, "unauthorized")
}

// TestAdminRefreshAndLogout: refresh rotates; a reused refresh token ends
// the session; logout by refresh token, by cookie or by access token ends
// the session's access tokens on every instance.
func TestAdminRefreshAndLogout(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		hubs := []*hubtest.Hub{h}
		if mode == hubtest.Scaled {
			hubs = append(hubs, h.StartSibling(t))
		}
		c := h.Client(t)
		// endedEverywhere: tok is refused on every instance, where each
		// held it as live a moment before.
		endedEverywhere := func(tok string) {
			t.Helper()
			c.As(tok).Do("GET", "/v1/admin/me", nil).Want(t, 401, "invalid_token")
			for _, x := range hubs[1:] {
				eventually.Error(t, recent.TTL/2, "the sibling refuses the ended admin token", refused(x.Client(t), tok, "/v1/admin/me"))
			}
		}
		warm := func(tok string) {
			t.Helper()
			for _, x := range hubs {
				x.Client(t).As(tok).Do("GET", "/v1/admin/me", nil).Want(t, 200, "")
			}
		}

		// Refresh with the body's token rotates it.
		a := newAdmin(t, h, "viewer")
		var next adminAuth
		r := c.Do("POST", "/v1/admin/auth/refresh", map[string]string{"refresh_token": a.RefreshToken}).Want(t, 200, "")
		r.JSON(t, &next)
		if next.RefreshToken == a.RefreshToken || next.AccessToken == "" || next.Admin.ID != a.Admin.ID || next.User != next.Admin {
			t.Errorf("refresh answer = %+v", next)
		}
		if cs := setCookies(t, r); cs["gw_admin_at"] == nil || cs["gw_admin_rt"].Value != next.RefreshToken {
			t.Errorf("refresh cookies = %v", cs)
		}
		warm(next.AccessToken)
		warm(a.AccessToken) // the old access token lives on: same session
		// The used token again: reuse ends the session, new tokens included.
		c.Do("POST", "/v1/admin/auth/refresh", map[string]string{"refresh_token": a.RefreshToken}).Want(t, 401, "invalid_token")
		endedEverywhere(next.AccessToken)
		c.Do("POST", "/v1/admin/auth/refresh", map[string]string{"refresh_token": next.RefreshToken}).Want(t, 401, "invalid_token")

		// Logout by refresh token.
		b := newAdmin(t, h, "operator")
		warm(b.AccessToken)
		c.Do("POST", "/v1/admin/auth/logout", map[string]string{"refresh_token": b.RefreshToken}).Want(t, 200, "")
		endedEverywhere(b.AccessToken)
		c.Do("POST", "/v1/admin/auth/refresh", map[string]string{"refresh_token": b.RefreshToken}).Want(t, 401, "invalid_token")

		// Logout by access token only.
		d := newAdmin(t, h, "viewer")
		warm(d.AccessToken)
		c.As(d.AccessToken).Do("POST", "/v1/admin/auth/logout", nil).Want(t, 200, "")
		endedEverywhere(d.AccessToken)
		c.Do("POST", "/v1/admin/auth/refresh", map[string]string{"refresh_token": d.RefreshToken}).Want(t, 401, "invalid_token")
		c.Do("POST", "/v1/admin/auth/logout", nil).Want(t, 401, "unauthorized")

		// After a restart the ended sessions stay ended.
		if mode == hubtest.Embedded {
			h = h.Restart(t)
			for _, tok := range []string{next.AccessToken, b.AccessToken, d.AccessToken} {
				h.Client(t).As(tok).Do("GET", "/v1/admin/me", nil).Want(t, 401, "invalid_token")
			}
		}
	})
}

// TestAdminRefreshCookie: the console refreshes and signs out with its
// cookies, from its own pages only.
func TestAdminRefreshCookie(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	a := newAdmin(t, h, "viewer")
	crossSite := map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}
	rt := map[string]string{"gw_admin_rt": a.RefreshToken}
	adminBrowserPost(t, h, "/v1/admin/auth/refresh", "", rt, crossSite).Want(t, 403, "forbidden")
	adminBrowserPost(t, h, "/v1/admin/auth/logout", "", rt, crossSite).Want(t, 403, "forbidden")
	adminBrowserPost(t, h, "/v1/admin/auth/logout", "", map[string]string{"gw_admin_at": a.AccessToken}, crossSite).Want(t, 403, "forbidden")
	// The refusals changed nothing.
	h.Client(t).As(a.AccessToken).Do("GET", "/v1/admin/me", nil).Want(t, 200, "")

	r := adminBrowserPost(t, h, "/v1/admin/auth/refresh", "{}", rt, sameOrigin).Want(t, 200, "")
	var next adminAuth
	r.JSON(t, &next)
	r = adminBrowserPost(t, h, "/v1/admin/auth/logout", "", map[string]string{"gw_admin_rt": next.RefreshToken}, sameOrigin).Want(t, 200, "")
	if cs := setCookies(t, r); cs["gw_admin_at"] == nil || cs["gw_admin_at"].MaxAge >= 0 || cs["gw_admin_rt"] == nil || cs["gw_admin_rt"].MaxAge >= 0 {
		t.Errorf("logout cookies = %v, want both cleared", cs)
	}
	h.Client(t).As(next.AccessToken).Do("GET", "/v1/admin/me", nil).Want(t, 401, "invalid_token")
	// A dead refresh cookie is cleared.
	r = adminBrowserPost(t, h, "/v1/admin/auth/refresh", "", map[string]string{"gw_admin_rt": next.RefreshToken}, sameOrigin).Want(t, 401, "invalid_token")
	if cs := setCookies(t, r); cs["gw_admin_rt"] == nil || cs["gw_admin_rt"].MaxAge >= 0 {
		t.Errorf("failed refresh cookies = %v, want gw_admin_rt cleared", cs)
	}
	// Signed in with the access cookie only, logout ends that session.
	b := newAdmin(t, h, "viewer")
	adminBrowserPost(t, h, "/v1/admin/auth/logout", "", map[string]string{"gw_admin_at": b.AccessToken}, sameOrigin).Want(t, 200, "")
	h.Client(t).As(b.AccessToken).Do("GET", "/v1/admin/me", nil).Want(t, 401, "invalid_token")
}

type adminPage struct {
	Items        []adminValue `json:"items"`
	Total, Limit int
	Offset       int
}

// TestAdminManagement: owners list, create, re-role, disable and enable
// admins, each audited once; the rules hold over HTTP.
func TestAdminManagement(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		hubs := []*hubtest.Hub{h}
		if mode == hubtest.Scaled {
			hubs = append(hubs, h.StartSibling(t))
		}
		c := h.Client(t)
		owner := newAdmin(t, h, "owner")
		own := c.As(owner.AccessToken)
		viewer := newAdmin(t, h, "viewer")
		op := newAdmin(t, h, "operator")

		// Owners only.
		for _, tok := range []string{viewer.AccessToken, op.AccessToken} {
			c.As(tok).Do("GET", "/v1/admin/admins", nil).Want(t, 403, "forbidden")
			c.As(tok).Do("POST", "/v1/admin/admins", map[string]string{"username": "x-nope", "password": hubtest.Password, "role": "viewer"}).Want(t, 403, "forbidden")
			c.As(tok).Do("POST", "/v1/admin/admins/"+viewer.Admin.ID+"/disable", nil).Want(t, 403, "forbidden")
		}

		// The last enabled owner can be neither disabled nor demoted.
		own.Do("POST", "/v1/admin/admins/"+owner.Admin.ID+"/disable", nil).Want(t, 409, "last_owner")
		own.Do("POST", "/v1/admin/admins/"+owner.Admin.ID+"/role", map[string]string{"role": "viewer"}).Want(t, 409, "last_owner")
		own.Do("GET", "/v1/admin/me", nil).Want(t, 200, "")

		// Create: 201, audited once; a taken name is 409; owner needs a step-up.
		var made adminValue
		own.Do("POST", "/v1/admin/admins", map[string]string{"username": "Fin.Lead", "password": hubtest.Password, "role": "finance"}).
			Want(t, 201, "").JSON(t, &made)
		if made.Username != "fin.lead" || made.Role != "finance" || made.Status != "active" || made.LastLoginAt != "" {
			t.Errorf("created admin = %+v", made)
		}
		own.Do("POST", "/v1/admin/admins", map[string]string{"username": "fin.lead", "password": hubtest.Password, "role": "viewer"}).Want(t, 409, "username_taken")
		own.Do("POST", "/v1/admin/admins", map[string]string{"username": "boss2", "password": hubtest.Password, "role": "owner"}).Want(t, 403, "step_up_required")
		var boss adminValue
		postWith(t, h, owner.AccessToken, "/v1/admin/admins", `{"username":"boss2","password":"`+hubtest.Password+`","role":"owner"}`,
			map[string]string{"X-Step-Up-Token": stepUpToken(t, h, owner.AccessToken)}).Want(t, 201, "").JSON(t, &boss)
		if n := auditRows(t, h, owner.AccessToken, "?action=admin.create").Total; n != 2 {
			t.Errorf("admin.create rows = %d, want 2", n)
		}
		fin := adminLogin(t, h, "fin.lead")

		// List: paged, filtered, by username.
		var page adminPage
		own.Do("GET", "/v1/admin/admins?limit=1", nil).Want(t, 200, "").JSON(t, &page)
		if len(page.Items) != 1 || page.Total != 5 || page.Limit != 1 {
			t.Errorf("limit=1 page = %+v, want 1 of 5", page)
		}
		own.Do("GET", "/v1/admin/admins?role=owner", nil).Want(t, 200, "").JSON(t, &page)
		if page.Total != 2 {
			t.Errorf("owners = %d, want 2", page.Total)
		}
		own.Do("GET", "/v1/admin/admins?q=FIN.", nil).Want(t, 200, "").JSON(t, &page)
		if page.Total != 1 || page.Items[0].ID != fin.Admin.ID || page.Items[0].LastLoginAt == "" {
			t.Errorf("q=FIN. = %+v, want fin.lead, signed in", page)
		}
		for _, q := range []string{"role=god", "status=gone", "limit=0", "limit=201"} {
			own.Do("GET", "/v1/admin/admins?"+q, nil).Want(t, 400, "invalid_query")
		}

		// A role change ends the admin's sessions on every instance.
		for _, x := range hubs {
			x.Client(t).As(fin.AccessToken).Do("GET", "/v1/admin/me", nil).Want(t, 200, "")
		}
		var changed adminValue
		own.Do("POST", "/v1/admin/admins/"+fin.Admin.ID+"/role", map[string]string{"role": "viewer"}).Want(t, 200, "").JSON(t, &changed)
		if changed.Role != "viewer" {
			t.Errorf("role change answer = %+v", changed)
		}
		c.As(fin.AccessToken).Do("GET", "/v1/admin/me", nil).Want(t, 401, "invalid_token")
		for _, x := range hubs[1:] {
			eventually.Error(t, recent.TTL/2, "the sibling refuses the re-roled admin's token", refused(x.Client(t), fin.AccessToken, "/v1/admin/me"))
		}
		c.Do("POST", "/v1/admin/auth/refresh", map[string]string{"refresh_token": fin.RefreshToken}).Want(t, 401, "invalid_token")
		fin = adminLogin(t, h, "fin.lead")
		if fin.Admin.Role != "viewer" {
			t.Errorf("signed in again as %q, want viewer", fin.Admin.Role)
		}
		// To owner needs a step-up token, used once.
		own.Do("POST", "/v1/admin/admins/"+fin.Admin.ID+"/role", map[string]string{"role": "owner"}).Want(t, 403, "step_up_required")
		su := stepUpToken(t, h, owner.AccessToken)
		postWith(t, h, owner.AccessToken, "/v1/admin/admins/"+fin.Admin.ID+"/role", `{"role":"owner"}`, map[string]string{"X-Step-Up-Token": su}).Want(t, 200, "")
		postWith(t, h, owner.AccessToken, "/v1/admin/admins/"+fin.Admin.ID+"/role", `{"role":"owner"}`, map[string]string{"X-Step-Up-Token": su}).Want(t, 403, "step_up_required")
		if n := auditRows(t, h, owner.AccessToken, "?action=admin.role_change").Total; n != 2 {
			t.Errorf("admin.role_change rows = %d, want 2", n)
		}

		// Disable: the admin's live token is refused at once, everywhere;
		// it cannot sign in; enable lets it.
		for _, x := range hubs {
			x.Client(t).As(op.AccessToken).Do("GET", "/v1/admin/me", nil).Want(t, 200, "")
		}
		var off adminValue
		own.Do("POST", "/v1/admin/admins/"+op.Admin.ID+"/disable", nil).Want(t, 200, "").JSON(t, &off)
		if off.Status != "disabled" {
			t.Errorf("disable answer = %+v", off)
		}
		c.As(op.AccessToken).Do("GET", "/v1/admin/me", nil).Want(t, 401, "invalid_token")
		for _, x := range hubs[1:] {
			eventually.Error(t, recent.TTL/2, "the sibling refuses the disabled admin's token", refused(x.Client(t), op.AccessToken, "/v1/admin/me"))
		}
		c.Do("POST", "/v1/admin/auth/login", map[string]string{"username": op.Admin.Username, "password": hubtest.Password}).Want(t, 401, "invalid_credentials")
		c.Do("POST", "/v1/admin/auth/refresh", map[string]string{"refresh_token": op.RefreshToken}).Want(t, 401, "invalid_token")
		own.Do("POST", "/v1/admin/admins/"+op.Admin.ID+"/enable", nil).Want(t, 200, "")
		adminLogin(t, h, op.Admin.Username)
		c.As(op.AccessToken).Do("GET", "/v1/admin/me", nil).Want(t, 401, "invalid_token") // the old session stays ended
		for _, action := range []string{"admin.disable", "admin.enable"} {
			if n := auditRows(t, h, owner.AccessToken, "?action="+action).Total; n != 1 {
				t.Errorf("%s rows = %d, want 1", action, n)
			}
		}

		// Three owners now: two may go, the last stays.
		own.Do("POST", "/v1/admin/admins/"+boss.ID+"/disable", nil).Want(t, 200, "")
		own.Do("POST", "/v1/admin/admins/"+fin.Admin.ID+"/role", map[string]string{"role": "finance"}).Want(t, 200, "")
		own.Do("POST", "/v1/admin/admins/"+owner.Admin.ID+"/disable", nil).Want(t, 409, "last_owner")

		// Unknown ids.
		const nobody = "00000000-0000-4000-8000-000000000000"
		before := auditRows(t, h, owner.AccessToken, "").Total
		own.Do("POST", "/v1/admin/admins/"+nobody+"/disable", nil).Want(t, 404, "not_found")
		own.Do("POST", "/v1/admin/admins/"+nobody+"/role", map[string]string{"role": "viewer"}).Want(t, 404, "not_found")
		own.Do("POST", "/v1/admin/admins/"+nobody+"/role", map[string]string{"role": "owner"}).Want(t, 404, "not_found")
		own.Do("POST", "/v1/admin/admins/not-a-uuid/enable", nil).Want(t, 400, "invalid_id")
		if after := auditRows(t, h, owner.AccessToken, "").Total; after != before {
			t.Errorf("refused writes: audit rows %d → %d", before, after)
		}
	})
}
