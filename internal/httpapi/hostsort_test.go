package httpapi_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"testing"

	"hostgate/internal/hosts"
	"hostgate/internal/hubtest"
)

// TestHostSortsAgree: the sort values of GET /v1/user/hosts are written once,
// in hosts.SortOrders. The served OpenAPI enum (and so docs/openapi.json and
// the console's generated type) lists them in that order, docs/hosts.md
// documents the same, and the route takes every one and refuses others.
func TestHostSortsAgree(t *testing.T) {
	want := make([]string, len(hosts.Sorts))
	for i, s := range hosts.Sorts {
		want[i] = string(s)
	}

	h := hubtest.Start(t, hubtest.Embedded)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string `json:"name"`
				In     string `json:"in"`
				Schema struct {
					Enum []string `json:"enum"`
				} `json:"schema"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(h.Client(t).Do("GET", "/v1/openapi.json", nil).Want(t, 200, "").Body, &doc); err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, p := range doc.Paths["/v1/user/hosts"]["get"].Parameters {
		if p.In == "query" && p.Name == "sort" {
			enum = p.Schema.Enum
		}
	}
	if !slices.Equal(enum, want) {
		t.Errorf("OpenAPI enum of GET /v1/user/hosts?sort = %v, want hosts.Sorts %v", enum, want)
	}

	md, err := os.ReadFile("../../docs/hosts.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `sort` \\| (.*?) \\|").FindSubmatch(md)
	var documented []string
	if row != nil {
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllSubmatch(row[1], -1) {
			documented = append(documented, string(m[1]))
		}
	}
	if !slices.Equal(documented, want) {
		t.Errorf("docs/hosts.md lists sorts %v, want hosts.Sorts %v", documented, want)
	}

	c := h.Client(t).As(h.Register(t).AccessToken)
	c.Do("POST", "/v1/user/hosts", map[string]any{"name": "one"}).Want(t, 200, "")
	for _, s := range want {
		c.Do("GET", "/v1/user/hosts?sort="+s, nil).Want(t, 200, "")
	}
	for _, s := range []string{"id", "-status", "NAME", fmt.Sprintf("%s,%s", want[0], want[1])} {
		c.Do("GET", "/v1/user/hosts?sort="+s, nil).Want(t, 400, "invalid_query")
	}
}
