package hostgate

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"hostgate/internal/agentproto"
)

// The files that carry the controls table besides the hub's own
// (internal/agentproto/controls.go, the one source).
const (
	hubControlsFile = "../../internal/agentproto/controls.go"
	goControlsFile  = "controls.go"
	pyControlsFile  = "../python/src/hostgate/controls.py"
	tsControlsFile  = "../typescript/src/controls.ts"
	openAPIFile     = "../../docs/openapi.json"
)

// ctlValue evaluates a constant as the controls files write it: a decimal
// number or 1 << n.
func ctlValue(expr string) (int64, error) {
	expr = strings.TrimSpace(expr)
	if l, r, ok := strings.Cut(expr, "<<"); ok {
		a, err1 := strconv.ParseInt(strings.TrimSpace(l), 10, 64)
		b, err2 := strconv.ParseUint(strings.TrimSpace(r), 10, 6)
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("cannot evaluate %q", expr)
		}
		return a << b, nil
	}
	return strconv.ParseInt(expr, 10, 64)
}

// readConsts finds every NAME = value of file with re (two groups: the
// name, the value expression), in file order.
func readConsts(t *testing.T, file string, re *regexp.Regexp) (names []string, values map[string]int64) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	values = map[string]int64{}
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		v, err := ctlValue(m[2])
		if err != nil {
			t.Fatalf("%s: %s: %v", file, m[1], err)
		}
		if _, dup := values[m[1]]; dup {
			t.Errorf("%s: %s is defined twice", file, m[1])
		}
		names = append(names, m[1])
		values[m[1]] = v
	}
	if len(names) == 0 {
		t.Fatalf("%s: no controls constants found", file)
	}
	return names, values
}

// pyName is the Python SDK's name of a Go constant: CtlZipToDir is
// CTL_ZIP_TO_DIR, CtlRegistryRW is CTL_REGISTRY_RW.
func pyName(goName string) string {
	var b strings.Builder
	rs := []rune(goName)
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) && unicode.IsLower(rs[i-1]) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// checkMirror reports every hub constant missing from or different in
// file, and every constant of file the hub does not have.
func checkMirror(t *testing.T, file string, hub map[string]int64, hubNames []string, nameOf func(string) string, got map[string]int64) {
	t.Helper()
	want := map[string]bool{}
	for _, n := range hubNames {
		name := nameOf(n)
		want[name] = true
		v, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s: %s = %d (hub's %s) is missing", file, name, hub[n], n)
		case v != hub[n]:
			t.Errorf("%s: %s = %d, the hub's table has %d", file, name, v, hub[n])
		}
	}
	for name, v := range got {
		if !want[name] {
			t.Errorf("%s: %s = %d is not in the hub's table (agentproto.Controls)", file, name, v)
		}
	}
}

// TestControlsParity: the hub's table (agentproto.Controls, one row per
// control, the one source) and every copy of it agree — the hub's own Ctl
// constants, the Go, Python and TypeScript SDKs' constants (named by each
// row's Const) and the OpenAPI document's known values of the controls/raw
// body. A row added to the hub's table without the others fails here, and
// so does a constant an SDK has that the table lacks.
func TestControlsParity(t *testing.T) {
	// The table: each row's SDK constant and value, in value order.
	var hubNames []string
	hubConsts := map[string]int64{}
	for _, c := range agentproto.Controls {
		if _, dup := hubConsts[c.Const]; dup {
			t.Errorf("agentproto.Controls: constant %s names two rows", c.Const)
		}
		hubNames = append(hubNames, c.Const)
		hubConsts[c.Const] = c.Value
	}

	// The hub's Go constants: the rows' names and values.
	_, ownConsts := readConsts(t, hubControlsFile,
		regexp.MustCompile(`(?m)^\s*(Ctl\w+)\s+int64\s*=\s*([0-9][0-9 <]*)$`))
	checkMirror(t, "internal/agentproto/controls.go", hubConsts, hubNames, func(n string) string { return n }, ownConsts)

	// The Go SDK: the same identifiers.
	_, goConsts := readConsts(t, goControlsFile,
		regexp.MustCompile(`(?m)^\s*(Ctl\w+)\s+int64\s*=\s*([0-9][0-9 <]*)$`))
	checkMirror(t, "sdk/go/controls.go", hubConsts, hubNames, func(n string) string { return n }, goConsts)

	// The Python SDK: CTL_* constants, and GO_NAMES mapping the Go names.
	_, pyConsts := readConsts(t, pyControlsFile,
		regexp.MustCompile(`(?m)^(CTL_\w+)\s*=\s*([0-9][0-9 <]*)$`))
	checkMirror(t, "sdk/python/src/hostgate/controls.py", hubConsts, hubNames, pyName, pyConsts)
	b, err := os.ReadFile(pyControlsFile)
	if err != nil {
		t.Fatal(err)
	}
	goNames := map[string]int64{}
	for _, m := range regexp.MustCompile(`(?m)^\s*"(Ctl\w+)":\s*(CTL_\w+),\s*$`).FindAllStringSubmatch(string(b), -1) {
		v, ok := pyConsts[m[2]]
		if !ok {
			t.Errorf("sdk/python/src/hostgate/controls.py: GO_NAMES[%q] is %s, not a constant", m[1], m[2])
		}
		goNames[m[1]] = v
	}
	checkMirror(t, "sdk/python/src/hostgate/controls.py GO_NAMES", hubConsts, hubNames, func(n string) string { return n }, goNames)

	// The TypeScript SDK: the Go names as keys of controls.
	_, tsConsts := readConsts(t, tsControlsFile,
		regexp.MustCompile(`(?m)^\s*(Ctl\w+):\s*([0-9][0-9 <]*),\s*$`))
	checkMirror(t, "sdk/typescript/src/controls.ts", hubConsts, hubNames, func(n string) string { return n }, tsConsts)

	// The OpenAPI document: x-known-values and x-known-names of the raw
	// body's controls are the table's values and NAMEs, in its order.
	b, err = os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas struct {
				OpBodyAny struct {
					Properties struct {
						Controls struct {
							Values []int64  `json:"x-known-values"`
							Names  []string `json:"x-known-names"`
						} `json:"controls"`
					} `json:"properties"`
				} `json:"OpBodyAny"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("docs/openapi.json: %v", err)
	}
	ctl := doc.Components.Schemas.OpBodyAny.Properties.Controls
	docNames := map[string]int64{}
	if len(ctl.Values) != len(ctl.Names) {
		t.Errorf("docs/openapi.json: OpBodyAny.controls has %d x-known-values, %d x-known-names", len(ctl.Values), len(ctl.Names))
	}
	for i := range min(len(ctl.Values), len(ctl.Names)) {
		docNames[ctl.Names[i]] = ctl.Values[i]
	}
	tableNames := make([]string, len(agentproto.Controls))
	table := map[string]int64{}
	for i, c := range agentproto.Controls {
		tableNames[i] = c.Name
		table[c.Name] = c.Value
	}
	checkMirror(t, "docs/openapi.json (OpBodyAny.controls x-known-values / x-known-names; regenerate: go run ./cmd/hostgate openapi > docs/openapi.json)",
		table, tableNames, func(n string) string { return n }, docNames)
}

// TestEveryRowRouteIsInTheDocument: the client API route each row of
// agentproto.Controls names is a POST route of docs/openapi.json.
func TestEveryRowRouteIsInTheDocument(t *testing.T) {
	b, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("docs/openapi.json: %v", err)
	}
	for _, c := range agentproto.Controls {
		if c.Route == "" {
			continue
		}
		p := "/v1/api/hosts/{id}/" + c.Route
		if _, ok := doc.Paths[p]["post"]; !ok {
			t.Errorf("%s (%d): docs/openapi.json has no POST %s", c.Name, c.Value, p)
		}
	}
}
