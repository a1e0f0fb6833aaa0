package hostgate

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The three SDKs have the same methods under one name each: Go CamelCase,
// Python snake_case, TypeScript camelCase. (The Python SDK's own
// tests/test_parity.py checks its parameters too.)
const (
	pySourceDir = "../python/src/hostgate"
	tsClient    = "../typescript/src/client.ts"
)

// snakeName is the Python name of a Go method: ListJobResults is
// list_job_results, RotateWebhookSecret rotate_webhook_secret.
func snakeName(goName string) string {
	var b strings.Builder
	rs := []rune(goName)
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// camelName is the TypeScript name: the first letter lowered.
func camelName(goName string) string {
	return strings.ToLower(goName[:1]) + goName[1:]
}

func TestMethodsParity(t *testing.T) {
	var py strings.Builder
	files, _ := filepath.Glob(filepath.Join(pySourceDir, "*.py"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		py.Write(b)
	}
	ts, err := os.ReadFile(tsClient)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for m := range reflect.TypeFor[*Client]().Methods() {
		n++
		if p := snakeName(m.Name); !regexp.MustCompile(`(?m)^    def ` + p + `\(`).MatchString(py.String()) {
			t.Errorf("the Python SDK has no Client.%s (Go %s)", p, m.Name)
		}
		if c := camelName(m.Name); !regexp.MustCompile(`(?m)^  (async )?` + c + `(<\w+>)?\(`).Match(ts) {
			t.Errorf("the TypeScript SDK has no Client.%s (Go %s)", c, m.Name)
		}
	}
	if n < 60 {
		t.Fatalf("only %d Go methods", n)
	}
	for goName, want := range map[string][2]string{
		"ListJobResults": {"list_job_results", "listJobResults"}, "CreateJob": {"create_job", "createJob"},
		"SystemInfo": {"system_info", "systemInfo"}, "ReadString": {"read_string", "readString"},
	} {
		if snakeName(goName) != want[0] || camelName(goName) != want[1] {
			t.Errorf("%s: %s %s", goName, snakeName(goName), camelName(goName))
		}
	}
}
