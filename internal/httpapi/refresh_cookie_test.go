package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"hostgate/internal/hubtest"
)

// setCookies returns the cookies an answer sets, by name.
func setCookies(t *testing.T, r *hubtest.Response) map[string]*http.Cookie {
	t.Helper()
	out := map[string]*http.Cookie{}
	for _, line := range r.Header.Values("Set-Cookie") {
		c, err := http.ParseSetCookie(line)
		if err != nil {
			t.Fatalf("Set-Cookie %q: %v", line, err)
		}
		out[c.Name] = c
	}
	return out
}

// browserPost posts body as the console would: with the refresh cookie
// (if any) and the given headers.
func browserPost(t *testing.T, h *hubtest.Hub, path, body, rt string, hdr map[string]string) *hubtest.Response {
	t.Helper()
	req, err := http.NewRequest("POST", h.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if rt != "" {
		req.AddCookie(&http.Cookie{Name: "gw_rt", Value: rt})
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return h.Client(t).Send(req)
}

var sameOrigin = map[string]string{"Sec-Fetch-Site": "same-origin"}

// TestRefreshCookieAttributes: register, login and refresh set gw_rt
// beside gw_at: HttpOnly, SameSite=Strict, sent only to the auth routes,
// living as long as the session, Secure only behind TLS.
func TestRefreshCookieAttributes(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_TRUSTED_PROXIES", "127.0.0.1/32"))
	email := hubtest.UniqueEmail()
	creds := `{"email":"` + email + `","password":"` + hubtest.Password + `"}`
	for _, path := range []string{"/v1/public/auth/register", "/v1/public/auth/login"} {
		r := browserPost(t, h, path, creds, "", nil).Want(t, 200, "")
		var a hubtest.Auth
		r.JSON(t, &a)
		cs := setCookies(t, r)
		rt, at := cs["gw_rt"], cs["gw_at"]
		if rt == nil || at == nil {
			t.Fatalf("%s set %v, want gw_at and gw_rt", path, r.Header.Values("Set-Cookie"))
		}
		if rt.Value != a.RefreshToken || !rt.HttpOnly || rt.SameSite != http.SameSiteStrictMode ||
			rt.Path != "/v1/public/auth/" || rt.MaxAge != 30*24*3600 || rt.Secure {
			t.Errorf("%s: gw_rt %q, want HttpOnly, SameSite=Strict, Path=/v1/public/auth/, Max-Age=2592000, not Secure, the body's token",
				path, rt.String())
		}
		if at.Path != "/" || at.Value != a.AccessToken {
			t.Errorf("%s: gw_at %q", path, at.String())
		}
	}
	// Over TLS (a trusted proxy says so) both are Secure.
	r := browserPost(t, h, "/v1/public/auth/login", creds, "", map[string]string{"X-Forwarded-Proto": "https"}).Want(t, 200, "")
	for name, c := range setCookies(t, r) {
		if !c.Secure {
			t.Errorf("%s over TLS: %q lacks Secure", name, c.String())
		}
	}
}

// TestRefreshCookieRotation: the console refreshes with body {} (or none)
// and its cookie; both cookies rotate; an old refresh cookie presented
// again ends the session; logout by cookie clears both.
func TestRefreshCookieRotation(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		reg := browserPost(t, h, "/v1/public/auth/register",
			`{"email":"`+hubtest.UniqueEmail()+`","password":"`+hubtest.Password+`"}`, "", nil).Want(t, 200, "")
		first := setCookies(t, reg)["gw_rt"].Value

		r := browserPost(t, h, "/v1/public/auth/refresh", "{}", first, sameOrigin).Want(t, 200, "")
		var a hubtest.Auth
		r.JSON(t, &a)
		cs := setCookies(t, r)
		if cs["gw_rt"] == nil || cs["gw_rt"].Value == first || cs["gw_rt"].Value != a.RefreshToken {
			t.Fatalf("refresh by cookie set gw_rt %v, want a new token equal to the body's", cs["gw_rt"])
		}
		if cs["gw_at"] == nil || cs["gw_at"].Value != a.AccessToken {
			t.Fatalf("refresh by cookie set gw_at %v, want the new access token", cs["gw_at"])
		}
		// No body at all works too.
		r = browserPost(t, h, "/v1/public/auth/refresh", "", cs["gw_rt"].Value, sameOrigin).Want(t, 200, "")
		second := setCookies(t, r)["gw_rt"].Value
		h.Client(t).As(setCookies(t, r)["gw_at"].Value).Do("GET", "/v1/user/me", nil).Want(t, 200, "")

		// The first cookie again: reuse ends the session, and the answer
		// clears the cookies.
		r = browserPost(t, h, "/v1/public/auth/refresh", "{}", first, sameOrigin).Want(t, 401, "invalid_token")
		if c := setCookies(t, r)["gw_rt"]; c == nil || c.MaxAge >= 0 && c.Value != "" {
			t.Errorf("a refused refresh by cookie did not clear gw_rt: %v", r.Header.Values("Set-Cookie"))
		}
		browserPost(t, h, "/v1/public/auth/refresh", "{}", second, sameOrigin).Want(t, 401, "invalid_token")

		// Logout by cookie ends a live session and clears both cookies.
		login := browserPost(t, h, "/v1/public/auth/login",
			`{"email":"`+a.User.Email+`","password":"`+hubtest.Password+`"}`, "", nil).Want(t, 200, "")
		live := setCookies(t, login)["gw_rt"].Value
		r = browserPost(t, h, "/v1/public/auth/logout", "{}", live, sameOrigin).Want(t, 200, "")
		cs = setCookies(t, r)
		for _, name := range []string{"gw_at", "gw_rt"} {
			if c := cs[name]; c == nil || c.Value != "" || c.MaxAge >= 0 {
				t.Errorf("logout: %s not cleared (%v)", name, r.Header.Values("Set-Cookie"))
			}
		}
		if cs["gw_rt"] != nil && cs["gw_rt"].Path != "/v1/public/auth/" {
			t.Errorf("logout clears gw_rt on path %q, not the one it was set on", cs["gw_rt"].Path)
		}
		browserPost(t, h, "/v1/public/auth/refresh", "{}", live, sameOrigin).Want(t, 401, "invalid_token")

		// API clients keep sending the token in the body.
		var b hubtest.Auth
		h.Client(t).Do("POST", "/v1/public/auth/login", map[string]string{"email": a.User.Email, "password": hubtest.Password}).
			Want(t, 200, "").JSON(t, &b)
		h.Client(t).Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": b.RefreshToken}).Want(t, 200, "").JSON(t, &b)
		h.Client(t).Do("POST", "/v1/public/auth/logout", map[string]string{"refresh_token": b.RefreshToken}).Want(t, 200, "")
		h.Client(t).Do("POST", "/v1/public/auth/refresh", map[string]string{}).Want(t, 401, "invalid_token")
	})
}

// TestRefreshCookieCrossSite: a page of another site cannot rotate or end
// the session through the browser's cookie; the hub's own pages and a
// configured origin can.
func TestRefreshCookieCrossSite(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_ALLOWED_ORIGINS", "https://console.example"))
	reg := browserPost(t, h, "/v1/public/auth/register",
		`{"email":"`+hubtest.UniqueEmail()+`","password":"`+hubtest.Password+`"}`, "", nil).Want(t, 200, "")
	rt := setCookies(t, reg)["gw_rt"].Value

	for _, hdr := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "same-site"},
		{"Sec-Fetch-Site": "none"},
		{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
		{"Origin": "https://evil.example"},
		{"Origin": "null"},
	} {
		for _, path := range []string{"/v1/public/auth/refresh", "/v1/public/auth/logout"} {
			r := browserPost(t, h, path, "{}", rt, hdr)
			if r.Status != 403 || r.Code() != "forbidden" || len(r.Header.Values("Set-Cookie")) != 0 {
				t.Errorf("%s with %v: %d %s, cookies %v; want 403 forbidden, none set", path, hdr, r.Status, r.Body, r.Header.Values("Set-Cookie"))
			}
		}
	}
	// The session lives on: the refused requests rotated and ended nothing.
	r := browserPost(t, h, "/v1/public/auth/refresh", "{}", rt,
		map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://console.example"}).Want(t, 200, "")
	rt = setCookies(t, r)["gw_rt"].Value
	browserPost(t, h, "/v1/public/auth/logout", "{}", rt, map[string]string{"Origin": "https://console.example"}).Want(t, 200, "")
}
