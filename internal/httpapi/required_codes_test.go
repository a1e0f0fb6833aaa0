package httpapi_test

import (
	"strings"
	"testing"

	"hostgate/internal/hubtest"
)

// TestSpecBadParameterCodes: each code of spec 7's 400 row is what the
// routes answer for its case — a missing required field whose spec row
// names a code gets that code, not invalid_body — and nothing is made.
func TestSpecBadParameterCodes(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	u := h.Register(t)
	user := h.Client(t).As(u.AccessToken)
	key := h.Client(t).As(apiKey(t, h, u.AccessToken))
	op, _ := h.Admin(t, "operator")
	adm := h.Client(t).As(op)
	long := strings.Repeat("n", 65)
	huge := strings.Repeat("n", 2000)
	exe := map[string]any{"exe_url": "https://dl.example/agent.exe", "exe_sha256": strings.Repeat("a", 64), "exe_size_bytes": 10}
	with := func(m map[string]any, k string, v any) map[string]any {
		out := map[string]any{k: v}
		for k, v := range m {
			out[k] = v
		}
		return out
	}

	for _, c := range []struct {
		client       *hubtest.Client
		method, path string
		body         any
		code         string
	}{
		{adm, "POST", "/v1/admin/gateway-versions", exe, "version_required"},
		{adm, "POST", "/v1/admin/gateway-versions", with(exe, "version", ""), "version_required"},
		{adm, "POST", "/v1/admin/gateway-versions", with(exe, "version", "  "), "version_required"},
		{adm, "POST", "/v1/admin/hosts/00000000-0000-0000-0000-000000000000/push-upgrade", map[string]any{}, "version_required"},
		{adm, "POST", "/v1/admin/gateway-versions", "not an object", "invalid_body"},

		{user, "POST", "/v1/user/hosts", map[string]any{}, "invalid_name"},
		{user, "POST", "/v1/user/hosts", map[string]any{"name": " "}, "invalid_name"},
		{user, "POST", "/v1/user/hosts", map[string]any{"name": "a\u202eb"}, "invalid_name"},
		{user, "POST", "/v1/user/hosts", map[string]any{"name": long}, "name_too_long"},
		{user, "POST", "/v1/user/hosts", map[string]any{"name": huge}, "name_too_long"},
		{user, "POST", "/v1/user/hosts", map[string]any{"name": "x", "listen_port": 80}, "invalid_port"},
		{user, "POST", "/v1/user/hosts", map[string]any{"name": "x", "listen_port": 70000}, "invalid_port"},
		{user, "POST", "/v1/user/hosts", map[string]any{"name": 5}, "invalid_body"},
		{key, "POST", "/v1/api/hosts", map[string]any{}, "invalid_name"},
		{key, "POST", "/v1/api/hosts", map[string]any{"name": huge}, "name_too_long"},
		{key, "POST", "/v1/api/hosts", map[string]any{"name": "x", "listen_port": 1}, "invalid_port"},
		{user, "POST", "/v1/user/api-keys", map[string]any{}, "invalid_name"},

		{key, "GET", "/v1/api/hosts/not-a-uuid", nil, "invalid_id"},
		{user, "GET", "/v1/user/hosts/not-a-uuid", nil, "invalid_id"},
		{key, "POST", "/v1/api/hosts/not-a-uuid/files/dir", map[string]any{"controls": 1, "path": "/x"}, "invalid_id"},
	} {
		c.client.Do(c.method, c.path, c.body).Want(t, 400, c.code)
	}
	var hs struct{ Items []any }
	user.Do("GET", "/v1/user/hosts", nil).Want(t, 200, "").JSON(t, &hs)
	if len(hs.Items) != 0 {
		t.Errorf("%d hosts made by refused calls", len(hs.Items))
	}
}
