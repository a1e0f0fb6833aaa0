package main

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestOpenAPICommand prints the document without reading any setting or
// opening a store, and prints the same bytes each time.
func TestOpenAPICommand(t *testing.T) {
	getenv := func(k string) string {
		t.Errorf("openapi read the setting %s", k)
		return ""
	}
	printDoc := func() []byte {
		var out, errOut bytes.Buffer
		if err := run(t.Context(), []string{"openapi"}, getenv, &out, &errOut); err != nil {
			t.Fatalf("openapi: %v\n%s", err, errOut.String())
		}
		return out.Bytes()
	}
	first := printDoc()
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(first, &doc); err != nil || doc.OpenAPI == "" || len(doc.Paths) < 10 {
		t.Fatalf("output is not the document (%v): %.200s", err, first)
	}
	if !bytes.Equal(first, printDoc()) {
		t.Error("two runs printed different documents")
	}
	committed, err := os.ReadFile("../../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, committed) {
		t.Error("docs/openapi.json is not the command's output; run `go run ./cmd/hostgate openapi > docs/openapi.json`")
	}
}
