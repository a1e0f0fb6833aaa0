// Package archtest checks the layout rules of docs/architecture.md as tests:
// every package documents itself once, and dependencies point one way.
package archtest

import (
	"encoding/json"
	"log/slog"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"hostgate/internal/httpapi"
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
	forbidden := []string{"hostgate/internal/store", "hostgate/internal/httpapi", "hostgate/internal/hub",
		"github.com/jackc/pgx", "modernc.org/sqlite", "github.com/redis/go-redis", "github.com/danielgtaylor/huma",
		"github.com/prometheus"}
	for _, p := range list(t, "linux") {
		name := strings.TrimPrefix(p.ImportPath, "hostgate/internal/")
		if !slices.Contains(domainPackages, name) {
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

// domainPackages are the packages that decide: their rules are below.
var domainPackages = []string{"accounts", "admin", "audit", "lockout", "passwords", "keyring", "paging", "apperr", "coord",
	"billing", "payments", "versions", "operations", "hosts", "apikeys", "deliveries", "l1config", "l1gate", "upgrades",
	"terminals", "dispatch", "names", "dashboard", "buckets", "sessions"}

// TestDomainPackagesDoNotImportTheAgentGateway: the gateway is transport
// to the agents; domain packages reach agents through the interfaces
// they declare, which the hub wiring fills in.
func TestDomainPackagesDoNotImportTheAgentGateway(t *testing.T) {
	for _, p := range list(t, "linux") {
		if !slices.Contains(domainPackages, strings.TrimPrefix(p.ImportPath, "hostgate/internal/")) {
			continue
		}
		if slices.Contains(p.Deps, "hostgate/internal/agentgw") {
			t.Errorf("%s depends on hostgate/internal/agentgw", p.ImportPath)
		}
	}
}

// TestHTTPAPIImportsNoStore: the transport talks to services, never to
// storage.
func TestHTTPAPIImportsNoStore(t *testing.T) {
	for _, p := range list(t, "linux") {
		if p.ImportPath != "hostgate/internal/httpapi" {
			continue
		}
		for _, d := range p.Deps {
			if d == "hostgate/internal/store" || strings.HasPrefix(d, "hostgate/internal/store/") {
				t.Errorf("httpapi depends on %s", d)
			}
		}
		return
	}
	t.Fatal("hostgate/internal/httpapi not listed")
}

// TestHubBinaryLinksNoBenchSupport: bench, simulator and test support
// stays out of the hub binary (go list -deps ./cmd/hostgate).
func TestHubBinaryLinksNoBenchSupport(t *testing.T) {
	forbidden := []string{"hostgate/internal/fleet", "hostgate/internal/loadtest", "hostgate/internal/store/storetest",
		"hostgate/internal/hubtest", "hostgate/internal/pgtest", "hostgate/internal/redistest"}
	for _, goos := range []string{"linux", "windows"} {
		cmd := exec.Command("go", "list", "-deps", "./cmd/hostgate")
		cmd.Dir = "../.."
		cmd.Env = append(cmd.Environ(), "GOOS="+goos)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps ./cmd/hostgate: %v", err)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, "hostgate/internal/hub") {
			t.Fatalf("GOOS=%s: the hub binary's dependencies do not list hostgate/internal/hub", goos)
		}
		for _, d := range deps {
			for _, f := range forbidden {
				if d == f || strings.HasPrefix(d, f+"/") {
					t.Errorf("GOOS=%s: cmd/hostgate links %s", goos, d)
				}
			}
		}
	}
}

// TestHTTPAPIConfigIsNarrow: the transport's Config is at most 12 fields,
// and each service it names is an interface httpapi declares (the few
// methods its handlers call), never a service's or a store's own type.
func TestHTTPAPIConfigIsNarrow(t *testing.T) {
	c := reflect.TypeFor[httpapi.Config]()
	if c.NumField() > 12 {
		t.Errorf("httpapi.Config has %d fields, want at most 12", c.NumField())
	}
	for i := range c.NumField() {
		f := c.Field(i)
		if f.Type.Kind() == reflect.Interface && f.Type.PkgPath() != "hostgate/internal/httpapi" {
			t.Errorf("httpapi.Config.%s is %s, not an interface httpapi declares", f.Name, f.Type)
		}
		if f.Type == reflect.TypeFor[*slog.Logger]() {
			continue
		}
		if f.Type.Kind() == reflect.Pointer || strings.Contains(f.Type.PkgPath(), "/store") {
			t.Errorf("httpapi.Config.%s is %s: a concrete service or store type", f.Name, f.Type)
		}
	}
}
