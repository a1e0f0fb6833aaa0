package httpapi_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"hostgate/internal/hubtest"
)

// TestCrossSiteCookieRequestsChangeNothing checks that a page on another
// site cannot use the browser's console cookie to change anything: not by
// a link to the installer (which issues new install credentials), not by
// a form or fetch that rotates a secret, deletes a host or suspends a
// user. The hub's own pages, configured origins, clients outside a browser
// and Authorization headers keep working.
func TestCrossSiteCookieRequestsChangeNothing(t *testing.T) {
	exe := []byte("MZ pretend agent executable")
	sum := sha256.Sum256(exe)
	dl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(exe) }))
	t.Cleanup(dl.Close)
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("GATEWAY_EXE_URL", dl.URL+"/agent.exe"),
		hubtest.WithEnv("GATEWAY_EXE_SHA256", hex.EncodeToString(sum[:])),
		hubtest.WithEnv("HOSTGATE_ALLOWED_ORIGINS", "https://console.example"))
	u := h.Register(t)
	key := apiKey(t, h, u.AccessToken)
	hs, c := createWithCreds(t, h, key)
	connected := h.ConnectAgent(t, u.User.ID, nil)
	adminTok, _ := h.Admin(t, "owner")

	// send makes a request as a browser would, with the console cookie
	// and the given headers.
	send := func(method, path, cookie string, hdr map[string]string) *hubtest.Response {
		t.Helper()
		req, err := http.NewRequest(method, h.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.AddCookie(&http.Cookie{Name: cookie, Value: map[string]string{"gw_at": u.AccessToken, "gw_admin_at": adminTok}[cookie]})
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		return h.Client(t).Send(req)
	}
	unsafe := []struct{ method, path, cookie string }{
		{"GET", "/v1/user/hosts/" + hs.ID + "/installer", "gw_at"},
		{"POST", "/v1/user/hosts/" + connected + "/rotate-secret", "gw_at"},
		{"POST", "/v1/user/hosts/" + hs.ID + "/install-token", "gw_at"},
		{"DELETE", "/v1/user/hosts/" + connected, "gw_at"},
		{"POST", "/v1/user/api-keys", "gw_at"},
		{"POST", "/v1/admin/users/" + u.User.ID + "/suspend", "gw_admin_at"},
	}
	for _, tt := range []struct {
		name string
		hdr  map[string]string
	}{
		{"cross-site", map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{"cross-site with its origin", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}},
		{"same-site", map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "https://sub." + strings.TrimPrefix(h.URL, "http://")}},
		{"opened from outside the browser", map[string]string{"Sec-Fetch-Site": "none"}},
		{"unknown fetch site", map[string]string{"Sec-Fetch-Site": "elsewhere"}},
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}},
		{"opaque origin", map[string]string{"Origin": "null"}},
	} {
		t.Run("refused/"+tt.name, func(t *testing.T) {
			for _, u := range unsafe {
				if r := send(u.method, u.path, u.cookie, tt.hdr); r.Status != 403 || r.Code() != "forbidden" {
					t.Errorf("%s %s: got %d %s, want 403 forbidden", u.method, u.path, r.Status, r.Body)
				}
			}
		})
	}
	// Nothing happened: the install token works, the agent is connected,
	// the user is active and has one API key.
	online(t, h, hs.ID, c.InstallToken).Want(t, 200, "")
	if on, err := h.Dispatch.Online(t.Context(), connected); err != nil || !on {
		t.Errorf("agent of %s: online %v (%v), want still connected", connected, on, err)
	}
	h.Client(t).As(u.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 200, "")
	var keys struct{ Items []any }
	h.Client(t).As(u.AccessToken).Do("GET", "/v1/user/api-keys", nil).Want(t, 200, "").JSON(t, &keys)
	if len(keys.Items) != 1 {
		t.Errorf("%d API keys, want the 1 made before", len(keys.Items))
	}

	// Reads are not refused: another site cannot see their answers.
	send("GET", "/v1/user/me", "gw_at", map[string]string{"Sec-Fetch-Site": "cross-site"}).Want(t, 200, "")

	installer := "/v1/user/hosts/" + hs.ID + "/installer"
	for _, tt := range []struct {
		name string
		hdr  map[string]string
	}{
		{"same-origin fetch", map[string]string{"Sec-Fetch-Site": "same-origin"}},
		{"same-origin fetch with origin", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": h.URL}},
		{"same-origin fetch, address other than the public URL", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "https://hub.internal"}},
		{"configured console origin", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://console.example"}},
		{"older browser, own origin", map[string]string{"Origin": h.URL}},
		{"older browser, configured origin", map[string]string{"Origin": "https://console.example"}},
		{"not a browser", nil},
	} {
		t.Run("allowed/"+tt.name, func(t *testing.T) {
			r := send("GET", installer, "gw_at", tt.hdr).Want(t, 200, "")
			if !strings.Contains(string(r.Body), "--install-template") {
				t.Errorf("installer body %.80q", r.Body)
			}
			send("POST", "/v1/user/api-keys", "gw_at", tt.hdr).Want(t, 400, "invalid_body") // reached the handler
		})
	}
	// An Authorization header is no ambient credential: no origin checks.
	req, _ := http.NewRequest("GET", h.URL+installer, nil)
	req.Header.Set("Authorization", "Bearer "+u.AccessToken)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	h.Client(t).Send(req).Want(t, 200, "")
}

// TestAuthCookiesAreStrict checks the second layer: browsers send the
// console cookies on no request another site starts.
func TestAuthCookiesAreStrict(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	email := hubtest.UniqueEmail()
	body := map[string]string{"email": email, "password": hubtest.Password}
	name := "adm-strict"
	if _, err := h.Admins.Create(t.Context(), name, hubtest.Password, "viewer"); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*hubtest.Response{
		h.Client(t).Do("POST", "/v1/public/auth/register", body),
		h.Client(t).Do("POST", "/v1/public/auth/login", body),
		h.Client(t).Do("POST", "/v1/admin/auth/login", map[string]string{"username": name, "password": hubtest.Password}),
	} {
		cookie := r.Want(t, 200, "").Header.Get("Set-Cookie")
		for _, want := range []string{"HttpOnly", "SameSite=Strict", "Path=/"} {
			if !strings.Contains(cookie, want) {
				t.Errorf("Set-Cookie %q lacks %s", cookie, want)
			}
		}
	}
}
