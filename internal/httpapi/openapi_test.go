package httpapi_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"hostgate/internal/hubtest"
)

// TestOpenAPIMatchesRoutes fails when a registered route is missing from
// /v1/openapi.json or a documented one is not registered.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	r := h.Client(t).Do("GET", "/v1/openapi.json", nil).Want(t, 200, "")

	doc, err := openapi3.NewLoader().LoadFromData(r.Body)
	if err != nil {
		t.Fatalf("load document: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	var documented []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	var registered []string
	for _, rt := range h.Server().Routes() {
		registered = append(registered, rt.Method+" "+rt.Path)
	}
	slices.Sort(documented)
	slices.Sort(registered)
	for _, d := range documented {
		if !slices.Contains(registered, d) {
			t.Errorf("documented but not registered: %s", d)
		}
	}
	for _, rg := range registered {
		if !slices.Contains(documented, rg) {
			t.Errorf("registered but not documented: %s", rg)
		}
	}
	if len(registered) < 10 {
		t.Errorf("only %d routes registered; the walk found nothing to compare", len(registered))
	}
}
