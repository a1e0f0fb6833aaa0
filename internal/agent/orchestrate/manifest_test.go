package orchestrate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDefaultManifest(t *testing.T) {
	var got []string
	for _, e := range DefaultManifest() {
		got = append(got, e.Section+" "+e.Exe+" "+e.Kind+" "+e.Wait.String())
	}
	want := []string{
		"DBServer DBServer/DBServer.exe database 1m0s",
		"LoginSrv LoginSrv/LoginSrv.exe login 30s",
		"LogServer LogServer/LogDataServer.exe log 30s",
		"M2Server Mir200/M2Server.exe main 1m0s",
		"RunGate RunGate/RunGate.exe gate 20s",
		"SelGate SelGate/SelGate.exe gate 20s",
		"LoginGate LoginGate/LoginGate.exe gate 20s",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n, numbered := DefaultManifest()[4].count(3); n != 3 || !numbered {
		t.Errorf("RunGate count(3) = %d, %v; want 3 numbered", n, numbered)
	}
	if n, numbered := DefaultManifest()[0].count(3); n != 1 || numbered {
		t.Errorf("DBServer count(3) = %d, %v; want 1 unnumbered", n, numbered)
	}
}

func TestParseManifest(t *testing.T) {
	good := `[{"section":"DB","exe":"db\\db.exe","kind":"database"},
	          {"section":"Gate","exe":"./gw/../gw/gate.exe","wait_s":5,"args":["-x"],"instances":"run_gate_count"},
	          {"section":"Pair","exe":"p.exe","wait_s":0,"instances":2}]`
	m, err := ParseManifest([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if m[0].Exe != "db/db.exe" || m[0].Wait != time.Minute || m[1].Exe != "gw/gate.exe" || m[1].Wait != 5*time.Second ||
		!m[1].PerRunGate || !slices.Equal(m[1].Args, []string{"-x"}) || m[2].Instances != 2 || m[2].Wait != 0 {
		t.Errorf("parsed %+v", m)
	}
	bad := map[string]string{
		"not an array":       `{"section":"A"}`,
		"empty":              `[]`,
		"unknown field":      `[{"section":"A","exe":"a.exe","kind":"gate","port":1}]`,
		"no kind or wait":    `[{"section":"A","exe":"a.exe"}]`,
		"kind and wait":      `[{"section":"A","exe":"a.exe","kind":"gate","wait_s":3}]`,
		"unknown kind":       `[{"section":"A","exe":"a.exe","kind":"web"}]`,
		"wait too long":      `[{"section":"A","exe":"a.exe","wait_s":601}]`,
		"absolute exe":       `[{"section":"A","exe":"/bin/a","kind":"gate"}]`,
		"drive exe":          `[{"section":"A","exe":"C:\\a.exe","kind":"gate"}]`,
		"exe outside":        `[{"section":"A","exe":"../a.exe","kind":"gate"}]`,
		"no section":         `[{"exe":"a.exe","kind":"gate"}]`,
		"bad section":        `[{"section":"A]","exe":"a.exe","kind":"gate"}]`,
		"duplicate section":  `[{"section":"A","exe":"a.exe","kind":"gate"},{"section":"a","exe":"b.exe","kind":"gate"}]`,
		"instances 0":        `[{"section":"A","exe":"a.exe","kind":"gate","instances":0}]`,
		"instances 17":       `[{"section":"A","exe":"a.exe","kind":"gate","instances":17}]`,
		"instances word":     `[{"section":"A","exe":"a.exe","kind":"gate","instances":"many"}]`,
		"trailing content":   `[{"section":"A","exe":"a.exe","kind":"gate"}] []`,
		"NUL in an argument": `[{"section":"A","exe":"a.exe","kind":"gate","args":["a\u0000"]}]`,
	}
	for name, b := range bad {
		if _, err := ParseManifest([]byte(b)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestLoadManifest(t *testing.T) {
	dir := t.TempDir()
	if m, err := LoadManifest(dir); err != nil || len(m) != 7 {
		t.Errorf("no orchestrate.json: %d entries, %v; want the default manifest", len(m), err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`[{"section":"A"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadManifest(dir)
	if code(err) != CodeManifestInvalid || !strings.Contains(err.Error(), `entry 1 ("A")`) {
		t.Errorf("bad orchestrate.json: %v, want %s naming the entry", err, CodeManifestInvalid)
	}
}
