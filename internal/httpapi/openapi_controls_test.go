package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
)

// TestOpenAPIControlsEnum: the served document's controls/raw body
// (OpBodyAny) takes any positive value (no enum, minimum 1) and lists the
// hub's table as x-known-values and x-known-names, in its order; no other
// operation body restricts its controls.
func TestOpenAPIControlsEnum(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	r := h.Client(t).Do("GET", "/v1/openapi.json", nil).Want(t, 200, "")
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum     []any    `json:"enum"`
					VarNames []string `json:"x-enum-varnames"`
					Values   []any    `json:"x-known-values"`
					Names    []string `json:"x-known-names"`
					Minimum  *float64 `json:"minimum"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		t.Fatal(err)
	}
	raw := doc.Components.Schemas["OpBodyAny"].Properties["controls"]
	if len(raw.Enum) != 0 || raw.Minimum == nil || *raw.Minimum != 1 {
		t.Errorf("OpBodyAny.controls: enum %v, minimum %v; want any value from 1", raw.Enum, raw.Minimum)
	}
	if len(raw.Values) != len(agentproto.Controls) || len(raw.Names) != len(agentproto.Controls) {
		t.Fatalf("OpBodyAny.controls: %d known values, %d names; the table has %d", len(raw.Values), len(raw.Names), len(agentproto.Controls))
	}
	for i, c := range agentproto.Controls {
		if v, ok := raw.Values[i].(float64); !ok || int64(v) != c.Value || raw.Names[i] != c.Name {
			t.Errorf("OpBodyAny.controls[%d] = %v %s, want %d %s", i, raw.Values[i], raw.Names[i], c.Value, c.Name)
		}
	}
	n := 0
	for name, s := range doc.Components.Schemas {
		if !strings.HasPrefix(name, "OpBody") || name == "OpBodyAny" {
			continue
		}
		n++
		if c, ok := s.Properties["controls"]; !ok || len(c.Enum) > 0 || len(c.VarNames) > 0 {
			t.Errorf("%s.controls = %+v, want a plain integer", name, c)
		}
	}
	if n == 0 {
		t.Error("no other OpBody schema found")
	}
}
