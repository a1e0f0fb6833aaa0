package fuzzcheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"hostgate/internal/battery"
)

const root = "../../.."

// target is a fuzz target: its package directory (from the repository's
// root) and its name.
type target struct{ pkg, name string }

// batteryKinds are the inputs battery T64 names and the targets that
// fuzz them.
var batteryKinds = map[string][]target{
	"API-key parser":             {{"internal/apikeys", "FuzzParse"}},
	"JWT header/claims":          {{"internal/keyring", "FuzzParseToken"}},
	"webhook signature header A": {{"internal/webhooks", "FuzzVerifySignatureHeaders"}},
	"webhook signature header B": {{"internal/webhooks", "FuzzVerifySignatureHeaders"}},
	"form-encoded notify":        {{"internal/payments", "FuzzNotifyForm"}},
	"L1 decrypt":                 {{"internal/l1", "FuzzDecode"}, {"internal/l1gate", "FuzzGateway"}},
	"agent WS envelope":          {{"internal/agentproto", "FuzzDecode"}, {"internal/agentgw", "FuzzAgentToHub"}},
	"install-template payload":   {{"internal/agentproto", "FuzzParsePayload"}, {"internal/installer", "FuzzReadPayload"}},
}

var (
	rowRE    = regexp.MustCompile("^\\| (`Fuzz\\w+`(?:, `Fuzz\\w+`)*) \\| `([\\w/]+)` \\|")
	nameRE   = regexp.MustCompile("`(Fuzz\\w+)`")
	fuzzFnRE = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\) \{$`)
)

// listed reads the targets table of docs/fuzzing.md.
func listed(t *testing.T) []target {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "fuzzing.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## The targets\n")
	if !ok {
		t.Fatal(`docs/fuzzing.md has no "## The targets" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var out []target
	for line := range strings.SplitSeq(section, "\n") {
		m := rowRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, n := range nameRE.FindAllStringSubmatch(m[1], -1) {
			out = append(out, target{m[2], n[1]})
		}
	}
	return out
}

// inTree finds every fuzz target under internal/ and cmd/ (where make
// fuzz looks) with its source.
func inTree(t *testing.T) map[target]string {
	t.Helper()
	out := map[target]string{}
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			for _, loc := range fuzzFnRE.FindAllSubmatchIndex(src, -1) {
				name := string(src[loc[2]:loc[3]])
				body := string(src[loc[0]:])
				if end := strings.Index(body, "\n}\n"); end >= 0 {
					body = body[:end]
				}
				out[target{filepath.ToSlash(rel), name}] = body
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// seeds counts a target's committed seeds: f.Add calls in its body and
// files of Go's corpus format in testdata/fuzz/<name>.
func seeds(t *testing.T, tg target, body string) (added, files int) {
	t.Helper()
	added = strings.Count(body, ".Add(")
	dir := filepath.Join(root, tg.pkg, "testdata", "fuzz", tg.name)
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(b), "go test fuzz v1\n") {
			files++
		} else {
			t.Errorf("%s/%s is not a corpus file (no \"go test fuzz v1\" line)", dir, e.Name())
		}
	}
	return added, files
}

// TestFuzzTargetsAreRealAndSeeded (battery T64): every target
// docs/fuzzing.md lists exists in its package with committed seeds (so
// its seeds run in every go test), every target in the tree is listed,
// and every kind of input the battery names has a listed target. make
// fuzz runs them all (FUZZTIME=5m for the nightly length).
func TestFuzzTargetsAreRealAndSeeded(t *testing.T) {
	doc := listed(t)
	tree := inTree(t)
	if len(doc) < 30 {
		t.Fatalf("docs/fuzzing.md lists %d targets; the table was not read", len(doc))
	}
	totalAdded, totalFiles := 0, 0
	for _, tg := range doc {
		body, ok := tree[tg]
		if !ok {
			t.Errorf("docs/fuzzing.md lists %s in %s, which has no such fuzz target", tg.name, tg.pkg)
			continue
		}
		added, files := seeds(t, tg, body)
		if added+files == 0 {
			t.Errorf("%s (%s) has no committed seed: no f.Add and no testdata/fuzz/%s", tg.name, tg.pkg, tg.name)
		}
		totalAdded += added
		totalFiles += files
	}
	for tg := range tree {
		if !slices.Contains(doc, tg) {
			t.Errorf("%s in %s is not listed in docs/fuzzing.md's targets table", tg.name, tg.pkg)
		}
	}
	kinds := make([]string, 0, len(batteryKinds))
	for kind, tgs := range batteryKinds {
		for _, tg := range tgs {
			if !slices.Contains(doc, tg) {
				t.Errorf("battery T64 kind %q: its target %s (%s) is not listed", kind, tg.name, tg.pkg)
			}
		}
		kinds = append(kinds, kind)
	}
	slices.Sort(kinds)
	battery.Report(t, "T64", "%d fuzz targets listed and found, each with committed seeds (%d f.Add seeds, %d corpus files in testdata/fuzz), run by every go test; the %d input kinds (%s) all covered; make fuzz FUZZTIME=5m for the nightly length",
		len(doc), totalAdded, totalFiles, len(kinds), strings.Join(kinds, ", "))
}
