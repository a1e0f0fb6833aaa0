package battery

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const root = "../.."

// reportRE finds battery.Report calls in test sources.
var reportRE = regexp.MustCompile(`battery\.Report\(\s*\w+\s*,\s*"(T[0-9]{2})"`)

// allIDs are the battery's entries: T01…T65 of ../shared/RELIABILITY.md §8.
func allIDs() []string {
	ids := make([]string, 65)
	for i := range ids {
		ids[i] = fmt.Sprintf("T%02d", i+1)
	}
	return ids
}

// reported maps each id to the files that report it.
func reported(t *testing.T) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		// Test files, and the shared suites test packages run
		// (internal/store/storetest); this package's own examples aside.
		if d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.ToSlash(filepath.Dir(path)) == root+"/internal/battery" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range reportRE.FindAllSubmatch(src, -1) {
			id := string(m[1])
			rel, _ := filepath.Rel(root, path)
			if !slices.Contains(got[id], rel) {
				got[id] = append(got[id], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestEveryBatteryEntryHasATest: each numbered entry is implemented by at
// least one test that reports its figure.
func TestEveryBatteryEntryHasATest(t *testing.T) {
	got := reported(t)
	var missing []string
	for _, id := range allIDs() {
		if len(got[id]) == 0 {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		t.Errorf("battery entries without a test calling battery.Report: %s", strings.Join(missing, ", "))
	}
	for id := range got {
		if !slices.Contains(allIDs(), id) {
			t.Errorf("battery.Report with unknown id %s in %v", id, got[id])
		}
	}
}

// TestReliabilityDocListsEveryEntry: docs/reliability.md has one row per
// entry, in order.
func TestReliabilityDocListsEveryEntry(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "reliability.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ParseTable(doc)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
		if r.Entry == "" {
			t.Errorf("%s: the row does not say what the entry checks", r.ID)
		}
		if r.Figures == "" {
			t.Errorf("%s: the row has no figure; run `make reliability`", r.ID)
		}
	}
	if !slices.Equal(ids, allIDs()) {
		t.Errorf("docs/reliability.md rows %v, want T01…T65 once each, in order", ids)
	}
}
