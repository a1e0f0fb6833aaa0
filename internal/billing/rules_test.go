package billing

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
)

// ruleCodes are the rule codes of rules.go, by constant name.
func ruleCodes(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "rules.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			for i, n := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("rules.go: %s is not a string literal", n.Name)
				}
				codes[n.Name], _ = strconv.Unquote(lit.Value)
			}
		}
	}
	return codes
}

// TestRulesAreTheControlsRules: the pricing rule of every row of
// agentproto.Controls is a rule code of rules.go (seeded by migration
// 0003), and every control.* code of rules.go prices some row.
func TestRulesAreTheControlsRules(t *testing.T) {
	codes := ruleCodes(t)
	if codes["RuleDir"] != RuleDir || codes["RuleHostQuery"] != RuleHostQuery {
		t.Fatalf("rules.go read as %v", codes)
	}
	known, used := map[string]bool{}, map[string]bool{}
	for _, code := range codes {
		known[code] = true
	}
	for _, c := range agentproto.Controls {
		if c.Rule == "" {
			continue
		}
		used[c.Rule] = true
		if !known[c.Rule] {
			t.Errorf("%s (%d) is priced by %q, which rules.go does not define", c.Name, c.Value, c.Rule)
		}
	}
	for name, code := range codes {
		if strings.HasPrefix(code, "control.") && !used[code] {
			t.Errorf("rules.go: %s = %q prices no row of agentproto.Controls", name, code)
		}
	}
}
