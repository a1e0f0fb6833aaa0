package httpapi_test

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
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

// TestOpenAPIValid holds /v1/openapi.json to the standard, strictly, so
// generators (the console's TypeScript types, SDKs) can take it as is:
// component names, declared path parameters, resolvable $refs, and an
// independent validator's verdict.
func TestOpenAPIValid(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	body := h.Client(t).Do("GET", "/v1/openapi.json", nil).Want(t, 200, "").Body

	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("decode: %v", err)
	}
	t.Run("ComponentNames", func(t *testing.T) { checkComponentNames(t, raw) })
	t.Run("PathParameters", func(t *testing.T) { checkPathParams(t, raw) })
	t.Run("Refs", func(t *testing.T) { checkRefs(t, raw) })
	t.Run("Validator", func(t *testing.T) {
		doc, err := openapi3.NewLoader().LoadFromData(body)
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		if err := doc.Validate(t.Context()); err != nil {
			t.Errorf("kin-openapi Validate: %v", err)
		}
	})
}

var componentName = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)

func checkComponentNames(t *testing.T, doc map[string]any) {
	components, _ := doc["components"].(map[string]any)
	n := 0
	for kind, v := range components {
		for name := range asMap(v) {
			n++
			if !componentName.MatchString(name) {
				t.Errorf("components.%s: name %q does not match %s", kind, name, componentName)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d components; the walk found nothing to check", n)
	}
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// checkPathParams: every {name} of a path is a required in:path parameter
// of every operation on it, and no operation declares a path parameter
// its path lacks.
func checkPathParams(t *testing.T, doc map[string]any) {
	checked := 0
	for path, item := range asMap(doc["paths"]) {
		want := regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(path, -1)
		for _, method := range methods {
			op := asMap(asMap(item)[method])
			if op == nil {
				continue
			}
			declared := map[string]bool{}
			for _, p := range append(asSlice(asMap(item)["parameters"]), asSlice(op["parameters"])...) {
				p = resolve(doc, p)
				if pm := asMap(p); pm["in"] == "path" {
					declared[pm["name"].(string)] = pm["required"] == true
				}
			}
			for _, m := range want {
				checked++
				required, ok := declared[m[1]]
				switch {
				case !ok:
					t.Errorf("%s %s: path parameter %q is not declared", strings.ToUpper(method), path, m[1])
				case !required:
					t.Errorf("%s %s: path parameter %q is not required", strings.ToUpper(method), path, m[1])
				}
				delete(declared, m[1])
			}
			for name := range declared {
				t.Errorf("%s %s: declares path parameter %q the path lacks", strings.ToUpper(method), path, name)
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d path parameters checked; the walk found nothing", checked)
	}
}

// checkRefs: every $ref anywhere is a local pointer to something present.
func checkRefs(t *testing.T, doc map[string]any) {
	n := 0
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				n++
				if pointer(doc, ref) == nil {
					t.Errorf("$ref %q resolves to nothing", ref)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	if n < 10 {
		t.Errorf("only %d $refs; the walk found nothing to check", n)
	}
}

// pointer follows a local JSON pointer ("#/components/schemas/X").
func pointer(doc map[string]any, ref string) any {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var v any = doc
	for tok := range strings.SplitSeq(rest, "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok = m[tok]; !ok {
			return nil
		}
	}
	return v
}

func resolve(doc map[string]any, v any) any {
	if ref, ok := asMap(v)["$ref"].(string); ok {
		return pointer(doc, ref)
	}
	return v
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }

func asSlice(v any) []any { s, _ := v.([]any); return s }

// TestOpenAPIFileIsCurrent: docs/openapi.json, from which the console
// generates its TypeScript types, is exactly what the hub serves.
func TestOpenAPIFileIsCurrent(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	served := h.Client(t).Do("GET", "/v1/openapi.json", nil).Want(t, 200, "").Body
	var want bytes.Buffer
	if err := json.Indent(&want, served, "", "  "); err != nil {
		t.Fatal(err)
	}
	want.WriteByte('\n')
	got, err := os.ReadFile("../../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("docs/openapi.json differs from the document the hub serves at /v1/openapi.json; " +
			"run `go run ./cmd/hostgate openapi > docs/openapi.json` and commit it")
	}
}
