package hostgate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"hostgate/internal/hub"
	hostgate "hostgate/sdk/go"
)

// TestVersionsFollowHub: the three SDKs carry the hub's release line —
// internal/hub.Version without its pre-release suffix ("0.1.0-dev" gives
// 0.1.0) — in every place a user or a package manager reads it: the Go
// Version const, pyproject.toml and hostgate.__version__, package.json,
// package-lock.json and the exported VERSION of the TypeScript SDK.
func TestVersionsFollowHub(t *testing.T) {
	line, _, _ := strings.Cut(hub.Version, "-")
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(line) {
		t.Fatalf("hub.Version %q has no x.y.z release line", hub.Version)
	}
	got := map[string]string{"sdk/go Version": hostgate.Version}

	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	one := func(rel, pattern string) {
		t.Helper()
		ms := regexp.MustCompile(pattern).FindAllStringSubmatch(read(rel), -1)
		if len(ms) != 1 {
			t.Errorf("%s: %d matches of %s, want 1", rel, len(ms), pattern)
			return
		}
		got[rel] = ms[0][1]
	}
	one("python/pyproject.toml", `(?m)^version\s*=\s*"([^"]*)"`)
	one("python/src/hostgate/__init__.py", `(?m)^__version__\s*=\s*"([^"]*)"`)
	one("typescript/src/version.ts", `(?m)^export const VERSION = '([^']*)';`)

	var pkg struct{ Version string }
	if err := json.Unmarshal([]byte(read("typescript/package.json")), &pkg); err != nil {
		t.Fatal(err)
	}
	got["typescript/package.json"] = pkg.Version
	var lock struct {
		Version  string
		Packages map[string]struct{ Version string }
	}
	if err := json.Unmarshal([]byte(read("typescript/package-lock.json")), &lock); err != nil {
		t.Fatal(err)
	}
	got["typescript/package-lock.json"] = lock.Version
	got["typescript/package-lock.json packages[\"\"]"] = lock.Packages[""].Version

	for where, v := range got {
		if v != line {
			t.Errorf("%s is %q, want the hub's release line %q (hub.Version %q)", where, v, line, hub.Version)
		}
	}
}
