package ini

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// gbk encodes UTF-8 test text as GBK with CRLF line ends.
func gbk(t testing.TB, s string) []byte {
	t.Helper()
	b, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encoding %q: %v", s, err)
	}
	return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
}

func fixture(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/Config.ini")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// replaceOnce returns src with old (which must occur exactly once)
// replaced by new: the whole expected file, built from the fixture's own
// bytes.
func replaceOnce(t *testing.T, src []byte, old, new string) []byte {
	t.Helper()
	o, n := gbk(t, old), gbk(t, new)
	if c := bytes.Count(src, o); c != 1 {
		t.Fatalf("%q occurs %d times in the fixture, want 1", old, c)
	}
	return bytes.Replace(src, o, n, 1)
}

func TestMergeWholeFile(t *testing.T) {
	src := fixture(t)
	tests := []struct {
		name        string
		sets        []Set
		old, new    string
		wantChanged []string
	}{
		{"value with spaces around =", []Set{{"DBServer", "GatePort", "5101"}},
			"GatePort = 5100\n", "GatePort = 5101\n", []string{"DBServer.GatePort"}},
		{"value after =, no space before it", []Set{{"DBServer", "ServerPort", "6001"}},
			"ServerPort= 6000\n", "ServerPort= 6001\n", []string{"DBServer.ServerPort"}},
		{"indented key", []Set{{"LoginSrv", "ServerPort", "5601"}},
			"  ServerPort =5600\n", "  ServerPort =5601\n", []string{"LoginSrv.ServerPort"}},
		{"GetStart 0 to 1", []Set{{"LoginSrv", "GetStart", "1"}},
			"[LoginSrv]\nGetStart=0\n", "[LoginSrv]\nGetStart=1\n", []string{"LoginSrv.GetStart"}},
		{"names match case-insensitively", []Set{{"dbserver", "gateport", "5102"}},
			"GatePort = 5100\n", "GatePort = 5102\n", []string{"dbserver.gateport"}},
		{"missing key: after the section's last key, before its trailing comment and blank lines",
			[]Set{{"M2Server", "UserPort", "7300"}},
			"MsgSrvPort=4900\n; 主服务器结束\n", "MsgSrvPort=4900\nUserPort=7300\n; 主服务器结束\n",
			[]string{"M2Server.UserPort"}},
		{"missing key: a comment above the section's keys stays", []Set{{"LogServer", "GetStart", "0"}},
			"[LogServer]\n; 日志端口\nPort=10000\n", "[LogServer]\n; 日志端口\nPort=10000\nGetStart=0\n",
			[]string{"LogServer.GetStart"}},
		{"missing key, section without keys", []Set{{"SelGate", "GetStart", "0"}},
			"[SelGate]\nGatePort=7100\n", "[SelGate]\nGatePort=7100\nGetStart=0\n", []string{"SelGate.GetStart"}},
		{"missing section: at the end of the file", []Set{{"Extra", "Port", "9000"}},
			"GatePort=7000\n", "GatePort=7000\n[Extra]\nPort=9000\n", []string{"Extra.Port"}},
		{"section name whose GBK bytes hold ']'", []Set{{"区服匽", "Port", "8001"}},
			"[区服匽]\nPort=8000\n", "[区服匽]\nPort=8001\n", []string{"区服匽.Port"}},
		{"Chinese value", []Set{{"GameCenter", "ServerName", "王者传奇"}},
			"ServerName = 热血传奇\n", "ServerName = 王者传奇\n", []string{"GameCenter.ServerName"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := Merge(src, tt.sets)
			if err != nil {
				t.Fatal(err)
			}
			want := replaceOnce(t, src, tt.old, tt.new)
			if !bytes.Equal(got, want) {
				t.Errorf("merged file differs at byte %d:\ngot  %q\nwant %q", firstDiff(got, want), got, want)
			}
			if !slices.Equal(changed, tt.wantChanged) {
				t.Errorf("changed = %v, want %v", changed, tt.wantChanged)
			}
			f, err := Parse(got)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.sets {
				if v, _ := f.Get(s.Section, s.Key); v != s.Value {
					t.Errorf("re-read %s = %q, want %q", s.Name(), v, s.Value)
				}
			}
		})
	}
}

func TestMergeSameValueChangesNothing(t *testing.T) {
	src := fixture(t)
	got, changed, err := Merge(src, []Set{{"DBServer", "GatePort", "5100"}, {"LoginSrv", "GetStart", "0"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 0 || !bytes.Equal(got, src) {
		t.Errorf("changed = %v, same bytes %v; want nothing changed", changed, bytes.Equal(got, src))
	}
}

func TestMergeFirstOccurrenceWins(t *testing.T) {
	src := gbk(t, "[A]\nK=1\nK=2\n[A]\nK=3\n")
	got, _, err := Merge(src, []Set{{"A", "K", "9"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := gbk(t, "[A]\nK=9\nK=2\n[A]\nK=3\n"); !bytes.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMergeNoFinalLineEnd(t *testing.T) {
	tests := []struct{ give, key, want string }{
		{"[A]\r\nK=1", "K", "[A]\r\nK=2"},
		{"[A]\r\nK=1", "J", "[A]\r\nK=1\r\nJ=2\r\n"},
		{"[B]\r\nK=1", "K", "[B]\r\nK=1\r\n[A]\r\nK=2\r\n"},
		{"", "K", "[A]\r\nK=2\r\n"},
		{"[A]\nK=1\n", "J", "[A]\nK=1\nJ=2\r\n"}, // LF-only lines stay LF; the new one is CRLF
	}
	for _, tt := range tests {
		got, _, err := Merge([]byte(tt.give), []Set{{"A", tt.key, "2"}})
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("Merge(%q, A.%s=2) = %q, want %q", tt.give, tt.key, got, tt.want)
		}
	}
}

func TestNotGBKRefused(t *testing.T) {
	tests := map[string][]byte{
		"lone lead byte at end": append(gbk(t, "[A]\nK=1\n"), 0x81),
		"invalid trail byte":    []byte("[A]\r\nK=\x81\x20\r\n"),
		"0xFF":                  []byte("[A]\r\nK=\xff\r\n"),
		"UTF-8 byte order mark": append([]byte{0xEF, 0xBB, 0xBF}, gbk(t, "[A]\nK=1\n")...),
	}
	for name, src := range tests {
		t.Run(name, func(t *testing.T) {
			if _, _, err := Merge(src, []Set{{"A", "K", "2"}}); !errors.Is(err, ErrNotGBK) {
				t.Errorf("Merge: err = %v, want ErrNotGBK", err)
			}
			path := filepath.Join(t.TempDir(), "Config.ini")
			if err := os.WriteFile(path, src, 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Update(path, []Set{{"A", "K", "2"}}); !errors.Is(err, ErrNotGBK) {
				t.Errorf("Update: err = %v, want ErrNotGBK", err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, src) {
				t.Errorf("the refused file changed: %q", got)
			}
		})
	}
}

func TestBadSetRefused(t *testing.T) {
	for _, s := range []Set{{"", "K", "1"}, {"A", "", "1"}, {"A]", "K", "1"}, {"A", "K=", "1"}, {"A", "K", "1\r\n"}, {"A", "K", " 1"}} {
		if _, _, err := Merge(nil, []Set{s}); err == nil {
			t.Errorf("Merge(%+v) succeeded, want an error", s)
		}
	}
	if _, _, err := Merge(nil, []Set{{"A", "K", "€·"}}); err != nil {
		t.Errorf("a value GBK can hold: %v", err)
	}
	if _, _, err := Merge(nil, []Set{{"A", "K", "😀"}}); err == nil {
		t.Error("a value GBK cannot hold was accepted")
	}
}

func TestGet(t *testing.T) {
	f, err := Parse(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		section, key, want string
		ok                 bool
	}{
		{"GameCenter", "ServerName", "热血传奇", true},
		{"DBServer", "备注", "数据库【主】", true},
		{"loginsrv", "serverport", "5600", true},
		{"LogServer", "GetStart", "", false},
		{"Nope", "GetStart", "", false},
		{"区服匽", "Port", "8000", true},
	}
	for _, tt := range tests {
		got, ok := f.Get(tt.section, tt.key)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Get(%s, %s) = %q, %v; want %q, %v", tt.section, tt.key, got, ok, tt.want, tt.ok)
		}
	}
}

func TestUpdateFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "Config.ini")
	src := fixture(t)
	if err := os.WriteFile(path, src, 0o640); err != nil {
		t.Fatal(err)
	}
	changed, err := Update(path, []Set{{"DBServer", "GatePort", "5101"}, {"SelGate", "GetStart", "0"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"DBServer.GatePort", "SelGate.GetStart"}; !slices.Equal(changed, want) {
		t.Errorf("changed = %v, want %v", changed, want)
	}
	got, _ := os.ReadFile(path)
	want := replaceOnce(t, replaceOnce(t, src, "GatePort = 5100\n", "GatePort = 5101\n"),
		"[SelGate]\nGatePort=7100\n", "[SelGate]\nGatePort=7100\nGetStart=0\n")
	if !bytes.Equal(got, want) {
		t.Errorf("file differs at byte %d", firstDiff(got, want))
	}
	// The old file's permissions; Windows keeps only the read-only bit, so
	// a writable file reads back as 0666 there.
	wantMode := os.FileMode(0o640)
	if runtime.GOOS == "windows" {
		wantMode = 0o666
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != wantMode {
		t.Errorf("mode = %v, want %v", st.Mode().Perm(), wantMode)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only Config.ini (no temporary file left)", len(ents))
	}
	// Unchanged values: the file is not rewritten.
	before, _ := os.Stat(path)
	if changed, err := Update(path, []Set{{"DBServer", "GatePort", "5101"}}); err != nil || len(changed) != 0 {
		t.Errorf("same value: changed %v, err %v", changed, err)
	}
	if after, _ := os.Stat(path); !os.SameFile(before, after) {
		t.Error("an update that changed nothing replaced the file")
	}
}

func TestUpdateCreatesMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Config.ini")
	if _, err := Update(path, []Set{{"DBServer", "GetStart", "0"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "[DBServer]\r\nGetStart=0\r\n" {
		t.Errorf("created %q", got)
	}
}
