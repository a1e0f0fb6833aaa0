// Package archtest checks the layout rules of docs/architecture.md as tests:
// every package documents itself once, and dependencies point one way.
package archtest

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

type pkg struct {
	ImportPath string
	Doc        string
	Imports    []string
	Deps       []string
	GoFiles    []string
}

func list(t *testing.T, goos string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "hostgate/...")
	cmd.Dir = "../.."
	cmd.Env = append(cmd.Environ(), "GOOS="+goos)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestEveryPackageHasADocComment: each package says what it is for.
func TestEveryPackageHasADocComment(t *testing.T) {
	for _, p := range list(t, "linux") {
		if len(p.GoFiles) > 0 && strings.TrimSpace(p.Doc) == "" {
			t.Errorf("%s has no package doc comment", p.ImportPath)
		}
	}
}

// TestDomainPackagesStayOutOfTransportAndStorage: domain packages decide;
// they never import storage engines, drivers, the HTTP layer or the
// metrics library (they report through observer interfaces).
func TestDomainPackagesStayOutOfTransportAndStorage(t *testing.T) {
	domain := []string{"accounts", "admin", "audit", "lockout", "passwords", "keyring", "paging", "apperr", "coord",
		"billing", "payments", "versions", "operations", "hosts", "apikeys", "deliveries", "l1config", "l1gate", "upgrades",
		"terminals", "dispatch", "names"}
	forbidden := []string{"hostgate/internal/store", "hostgate/internal/httpapi", "hostgate/internal/hub",
		"github.com/jackc/pgx", "modernc.org/sqlite", "github.com/redis/go-redis", "github.com/danielgtaylor/huma",
		"github.com/prometheus"}
	for _, p := range list(t, "linux") {
		name := strings.TrimPrefix(p.ImportPath, "hostgate/internal/")
		isDomain := false
		for _, d := range domain {
			isDomain = isDomain || name == d
		}
		if !isDomain {
			continue
		}
		for _, imp := range p.Deps {
			for _, f := range forbidden {
				if imp == f || strings.HasPrefix(imp, f+"/") {
					t.Errorf("%s depends on %s", p.ImportPath, imp)
				}
			}
		}
	}
}
