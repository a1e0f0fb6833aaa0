package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
)

// TestOpenAPIControlsEnum: the served document's controls/raw body
// (OpBodyAny) lists the hub's table as enum and x-enum-varnames, in its
// order, and no other operation body restricts its controls.
func TestOpenAPIControlsEnum(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	r := h.Client(t).Do("GET", "/v1/openapi.json", nil).Want(t, 200, "")
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum     []any    `json:"enum"`
					VarNames []string `json:"x-enum-varnames"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		t.Fatal(err)
	}
	raw := doc.Components.Schemas["OpBodyAny"].Properties["controls"]
	if len(raw.Enum) != len(agentproto.Controls) || len(raw.VarNames) != len(agentproto.Controls) {
		t.Fatalf("OpBodyAny.controls: %d enum values, %d names; the table has %d", len(raw.Enum), len(raw.VarNames), len(agentproto.Controls))
	}
	for i, c := range agentproto.Controls {
		if v, ok := raw.Enum[i].(float64); !ok || int64(v) != c.Value || raw.VarNames[i] != c.Name {
			t.Errorf("OpBodyAny.controls[%d] = %v %s, want %d %s", i, raw.Enum[i], raw.VarNames[i], c.Value, c.Name)
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
