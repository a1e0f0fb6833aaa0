package battery

import (
	"strings"
	"testing"
)

func TestRenderRewritesReportedRowsOnly(t *testing.T) {
	doc := "# x\n\n" + beginMarker + "\n| ID | Entry | Tests | Figure |\n|---|---|---|---|\n" +
		"| T01 | crash points | `old` | old figure |\n| T02 | retries | `keep` | kept |\n" + endMarker + "\ntail\n"
	figs, err := ReadFigures(strings.NewReader(
		`{"id":"T01","test":"TestB/postgres","figure":"100 runs, 0 lost | 0 doubled"}` + "\n\n" +
			`{"id":"T01","test":"TestA/sqlite","figure":"100 runs, 0 lost"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render([]byte(doc), figs)
	if err != nil {
		t.Fatal(err)
	}
	want := "# x\n\n" + beginMarker + "\n| ID | Entry | Tests | Figure |\n|---|---|---|---|\n" +
		"| T01 | crash points | `TestA/sqlite`, `TestB/postgres` | 100 runs, 0 lost; 100 runs, 0 lost \\| 0 doubled |\n" +
		"| T02 | retries | `keep` | kept |\n" + endMarker + "\ntail\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	rows, err := ParseTable(out)
	if err != nil || len(rows) != 2 || rows[0].Tests != "`TestA/sqlite`, `TestB/postgres`" {
		t.Errorf("ParseTable = %+v, %v", rows, err)
	}
}

func TestRenderRefusesADocWithoutMarkers(t *testing.T) {
	if _, err := Render([]byte("| T01 | a | b | c |\n"), nil); err == nil {
		t.Error("Render accepted a doc without the battery markers")
	}
}

func TestReadFiguresRefusesUnknownIDs(t *testing.T) {
	if _, err := ReadFigures(strings.NewReader(`{"id":"T1","test":"x","figure":"y"}`)); err == nil {
		t.Error("ReadFigures accepted id T1")
	}
}

func TestReportRejectsBadIDs(t *testing.T) {
	ft := &fakeTB{TB: t}
	func() {
		defer func() { _ = recover() }()
		Report(ft, "T1", "x")
	}()
	if !ft.fatal {
		t.Error("Report accepted id T1")
	}
}

type fakeTB struct {
	testing.TB
	fatal bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Fatalf(string, ...any) { f.fatal = true; panic("fatal") }
