package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
)

// The agent setup's members are declared once: agentproto.Issued (what
// the hub issues) and agentproto.Setup (the setup file: Issued and the
// members set on the machine). Everything else embeds them, or is a
// mirror in an SDK checked member by member by sdk/go/setup_parity_test.go.
// A new agent setting is therefore added in one place.

// setupDeclarations are the struct types allowed to declare setup members,
// by "directory.Type".
var setupDeclarations = map[string]string{
	"internal/agentproto.Issued": "the one declaration of the issued setup",
	"internal/agentproto.Setup":  "the one declaration of the setup file's own members",
	"sdk/go.Credentials":         "Go SDK mirror (setup parity test)",
	"sdk/go.PayloadHub":          "Go SDK mirror (setup parity test)",
}

// setupMemberThreshold is how many setup members make a struct a
// redeclaration of the setup: a few (bid, secret_key, report_url) are
// also members of other documents (settings.update, a host, the L1
// configuration).
const setupMemberThreshold = 4

// setupMembers is every JSON member name of agentproto.Setup.
func setupMembers(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			names = append(names, setupMembers(f.Type)...)
		case name != "" && name != "-":
			names = append(names, name)
		}
	}
	return names
}

// setupPlace is a struct type declaring setup members.
type setupPlace struct {
	key     string // directory.Type ("directory.func literal" for an anonymous struct)
	pos     string // file:line
	members []string
}

// setupPlaces scans the repository's Go files (tests excepted) for struct
// types that declare setup members in their own JSON tags.
func setupPlaces(t *testing.T, root string) []setupPlace {
	t.Helper()
	known := setupMembers(reflect.TypeFor[agentproto.Setup]())
	var places []setupPlace
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata", "web":
				return filepath.SkipDir
			}
			return nil
		}
		// Tests are left out: a test may decode an answer as an outside
		// client would, with its own struct.
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		dir := filepath.ToSlash(filepath.Dir(rel))
		named := map[*ast.StructType]string{}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok {
					named[st] = ts.Name.Name
				}
			}
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			var members []string
			for _, field := range st.Fields.List {
				if field.Tag == nil {
					continue
				}
				tag, _ := strconv.Unquote(field.Tag.Value)
				name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
				if slices.Contains(known, name) {
					members = append(members, name)
				}
			}
			if len(members) > 0 {
				name := named[st]
				if name == "" {
					name = "(anonymous struct)"
				}
				p := fset.Position(st.Pos())
				places = append(places, setupPlace{key: dir + "." + name,
					pos: fmt.Sprintf("%s:%d", filepath.ToSlash(rel), p.Line), members: members})
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return places
}

// TestSetupMembersAreDeclaredOnce lists where the agent setup's members
// appear in Go structs, and fails when a struct other than the declarations
// and the listed mirrors redeclares the setup.
func TestSetupMembersAreDeclaredOnce(t *testing.T) {
	places := setupPlaces(t, "../..")
	seen := map[string]bool{}
	for _, p := range places {
		why, allowed := setupDeclarations[p.key]
		switch {
		case allowed:
			seen[p.key] = true
			t.Logf("%s %s (%s): %s", p.pos, p.key, why, strings.Join(p.members, ", "))
		case len(p.members) >= setupMemberThreshold:
			t.Errorf("%s: %s redeclares %d agent setup members (%s): embed agentproto.Issued or agentproto.Setup instead",
				p.pos, p.key, len(p.members), strings.Join(p.members, ", "))
		case len(p.members) > 1:
			t.Logf("%s %s (a few shared names, below %d): %s", p.pos, p.key, setupMemberThreshold, strings.Join(p.members, ", "))
		}
	}
	for key := range setupDeclarations {
		if !seen[key] {
			t.Errorf("%s is listed as a setup declaration but declares no setup member: update setupDeclarations", key)
		}
	}
}

// The scan sees a redeclaration, named or anonymous, in a file of its own.
func TestSetupScanFindsARedeclaration(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\ntype Copy struct {\n\tHostID string `json:\"host_id\"`\n\tBID int64 `json:\"bid,omitempty\"`\n" +
		"\tWS string `json:\"ws_url\"`\n\tL1 string `json:\"l1_listen\"`\n}\n\nvar v struct {\n\tA string `json:\"agent_pubkey\"`\n}\n"
	if err := writeFile(filepath.Join(dir, "x", "x.go"), src); err != nil {
		t.Fatal(err)
	}
	places := setupPlaces(t, dir)
	if len(places) != 2 || places[0].key != "x.Copy" || len(places[0].members) != 4 || places[1].key != "x.(anonymous struct)" {
		t.Errorf("places %+v", places)
	}
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}
