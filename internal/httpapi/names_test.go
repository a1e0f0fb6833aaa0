package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"hostgate/internal/hubtest"
)

// badNames are names every route that takes one refuses (internal/names).
var badNames = map[string]string{
	"NUL":                     "web\x00",
	"tab":                     "we\tb",
	"newline inside":          "we\nb",
	"trailing newline":        "web\n",
	"escape sequence":         "\x1b[31mred",
	"DEL":                     "web\x7f",
	"C1 NEL":                  "web\u0085",
	"C1 CSI":                  "\u009b31mred",
	"right-to-left override":  "invoice\u202efdp.exe",
	"left-to-right embedding": "\u202aweb",
	"pop directional":         "web\u202c",
	"first strong isolate":    "\u2068web\u2069",
	"right-to-left mark":      "web\u200f",
	"arabic letter mark":      "\u061cweb",
	"line separator":          "web\u2028x",
}

// TestNamesRefuseControlAndBidi: each route that takes a name refuses
// control and bidirectional-control characters with 400 invalid_name, the
// field named in the message, and changes nothing.
func TestNamesRefuseControlAndBidi(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		key := apiKey(t, h, u.AccessToken)
		hs, _ := createWithCreds(t, h, key)
		user, api := h.Client(t).As(u.AccessToken), h.Client(t).As(key)
		routes := []struct {
			via                 *hubtest.Client
			method, path, field string
		}{
			{user, "PUT", "/v1/user/me", "display_name"},
			{user, "POST", "/v1/user/api-keys", "name"},
			{user, "POST", "/v1/user/hosts", "name"},
			{user, "PUT", "/v1/user/hosts/" + hs.ID, "name"},
			{api, "POST", "/v1/api/hosts", "name"},
		}
		for what, bad := range badNames {
			for _, rt := range routes {
				r := rt.via.Do(rt.method, rt.path, map[string]any{rt.field: bad})
				var e struct{ Error, Message string }
				_ = json.Unmarshal(r.Body, &e)
				if r.Status != 400 || e.Error != "invalid_name" || !strings.HasPrefix(e.Message, rt.field+" must ") {
					t.Errorf("%s %s with %s: %d %s, want 400 invalid_name naming %s", rt.method, rt.path, what, r.Status, r.Body, rt.field)
				}
			}
		}
		// Nothing changed: the display name, one key, one host named web-1.
		var me struct {
			DisplayName string `json:"display_name"`
		}
		user.Do("GET", "/v1/user/me", nil).Want(t, 200, "").JSON(t, &me)
		if me.DisplayName != u.User.DisplayName {
			t.Errorf("display_name = %q, want %q unchanged", me.DisplayName, u.User.DisplayName)
		}
		var list struct{ Items []struct{ Name string } }
		user.Do("GET", "/v1/user/api-keys", nil).Want(t, 200, "").JSON(t, &list)
		if len(list.Items) != 1 {
			t.Errorf("api keys = %+v, want the one created before", list.Items)
		}
		list.Items = nil
		user.Do("GET", "/v1/user/hosts", nil).Want(t, 200, "").JSON(t, &list)
		if len(list.Items) != 1 || list.Items[0].Name != "web-1" {
			t.Errorf("hosts = %+v, want one named web-1", list.Items)
		}

		// Good names with right-to-left and other scripts still pass.
		for _, good := range []string{"שרת-1", "خادم ١", "сервер", "サーバー", "web 🚀"} {
			user.Do("POST", "/v1/user/hosts", map[string]any{"name": good}).Want(t, 200, "")
		}

		// An email's local part becomes the display name at registration,
		// so it is held to the same rule.
		for _, email := range []string{"\u202eab@example.com", "a\u0085b@example.com", "\"a\tb\"@example.com"} {
			h.Client(t).Do("POST", "/v1/public/auth/register", map[string]string{"email": email, "password": hubtest.Password}).
				Want(t, 400, "invalid_email")
		}

		// Invalid UTF-8 in the body is refused too, never stored mangled.
		req, _ := http.NewRequest("POST", h.URL+"/v1/user/hosts", bytes.NewReader([]byte("{\"name\":\"web\xff\"}")))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+u.AccessToken)
		if r := h.Client(t).Send(req); r.Status != 400 || r.Code() != "invalid_body" {
			t.Errorf("invalid UTF-8 name: %d %s, want 400 invalid_body", r.Status, r.Body)
		}
	})
}
