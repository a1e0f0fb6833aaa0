package httpapi_test

import (
	"strconv"
	"strings"
	"testing"

	"hostgate/internal/hubtest"
)

func TestGatewayVersions(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	op, _ := h.Admin(t, "operator")
	c := h.Client(t).As(op)
	good := map[string]any{"version": "0.4.0", "channel": "beta", "exe_url": "https://dl.example.com/agent.exe",
		"exe_sha256": strings.Repeat("AB", 32), "exe_size_bytes": 1234, "changelog": "first"}
	var v struct {
		Version   string
		Channel   string
		ExeSHA256 string `json:"exe_sha256"`
		MinProto  int    `json:"min_supported_protocol"`
	}
	c.Do("POST", "/v1/admin/gateway-versions", good).Want(t, 200, "").JSON(t, &v)
	if v.Version != "0.4.0" || v.Channel != "beta" || v.ExeSHA256 != strings.Repeat("ab", 32) || v.MinProto != 1 {
		t.Fatalf("published %+v", v)
	}
	c.Do("POST", "/v1/admin/gateway-versions", good).Want(t, 409, "version_exists")
	n := 0
	for field, bad := range map[string]any{"version": "", "exe_sha256": "xyz", "exe_url": "ftp://x", "exe_size_bytes": 0, "channel": "nightly"} {
		b := map[string]any{}
		for k, v := range good {
			b[k] = v
		}
		b[field] = bad
		n++
		b["version"] = map[bool]any{true: bad, false: "0.9." + strconv.Itoa(n)}[field == "version"]
		want := "invalid_body"
		if field == "version" {
			want = "version_required"
		}
		c.Do("POST", "/v1/admin/gateway-versions", b).Want(t, 400, want)
	}
	c.Do("POST", "/v1/admin/gateway-versions", map[string]any{"version": "four", "exe_url": "https://x/a",
		"exe_sha256": strings.Repeat("ab", 32), "exe_size_bytes": 1}).Want(t, 400, "invalid_version")
	c.Do("POST", "/v1/admin/gateway-versions/0.4.0/yank", nil).Want(t, 200, "")
	c.Do("POST", "/v1/admin/gateway-versions/0.4.0/yank", nil).Want(t, 409, "version_yanked")
	c.Do("POST", "/v1/admin/gateway-versions/9.9.9/yank", nil).Want(t, 404, "version_not_found")
	var list struct{ Total int }
	c.Do("GET", "/v1/admin/gateway-versions", nil).Want(t, 200, "").JSON(t, &list)
	if list.Total != 0 {
		t.Errorf("yanked version listed by default: %d", list.Total)
	}
	c.Do("GET", "/v1/admin/gateway-versions?include_yanked=true&channel=beta", nil).Want(t, 200, "").JSON(t, &list)
	if list.Total != 1 {
		t.Errorf("with yanked: %d", list.Total)
	}
}
