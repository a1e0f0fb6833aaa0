package httpapi_test

import (
	"os"
	"strings"
	"testing"

	"hostgate/internal/hubtest"
)

// TestAdminRolesDocMatchesTable keeps docs/admin-roles.md equal to the
// route→role table the server enforces.
func TestAdminRolesDocMatchesTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/admin-roles.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{}
	for line := range strings.SplitSeq(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`/") && !strings.Contains(cells[1], " /v1/admin/") {
			continue
		}
		route := strings.Trim(strings.TrimSpace(cells[1]), "`")
		documented[route] = strings.TrimSpace(cells[2]) + " | " + strings.Trim(strings.TrimSpace(cells[3]), "`")
	}
	h := hubtest.Start(t, hubtest.Embedded)
	policy := h.Server().AdminPolicy()
	for _, rt := range policy {
		var roles []string
		for _, r := range rt.Allowed {
			roles = append(roles, string(r))
		}
		key := rt.Method + " " + rt.Path
		want := strings.Join(roles, ", ") + " | " + rt.Action
		if got, ok := documented[key]; !ok {
			t.Errorf("docs/admin-roles.md lacks %s", key)
		} else if got != want {
			t.Errorf("docs/admin-roles.md: %s = %q, want %q", key, got, want)
		}
		delete(documented, key)
	}
	for key := range documented {
		t.Errorf("docs/admin-roles.md lists %s, which the server does not have", key)
	}
}
