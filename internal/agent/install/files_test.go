package install

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	var prepared string
	if err := writeFileAtomic(path, []byte("one"), func(tmp string) error { prepared = tmp; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := writeFileAtomic(path, []byte("two"), nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Errorf("content %q", b)
	}
	if filepath.Dir(prepared) != dir || prepared == path {
		t.Errorf("prepare got %q", prepared)
	}
	if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if err := writeFileAtomic(path, []byte("three"), func(string) error { return errInjected }); err == nil {
		t.Error("prepare error ignored")
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Errorf("content after failed write %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries: temporary files left", len(entries))
	}
}

func TestCopyFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.exe")
	dst := filepath.Join(dir, "sub", "dir", "agent.exe")
	if err := os.WriteFile(src, []byte("binary v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(src, dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "binary v1" {
		t.Errorf("dst %q", b)
	}
	// Same content: left alone (mtime unchanged is hard to observe; the
	// file must still be the same inode).
	before, _ := os.Stat(dst)
	if err := copyFile(src, dst); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(dst)
	if !os.SameFile(before, after) {
		t.Error("identical file replaced")
	}
	// Copy onto itself.
	if err := copyFile(dst, dst); err != nil {
		t.Errorf("self copy: %v", err)
	}
	// New content: replaced.
	if err := os.WriteFile(src, []byte("binary v2!"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(src, dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "binary v2!" {
		t.Errorf("dst %q", b)
	}
	if err := copyFile(filepath.Join(dir, "missing"), dst); err == nil {
		t.Error("missing source accepted")
	}
}

func TestQuoteArg(t *testing.T) {
	for in, want := range map[string]string{
		``:                          `""`,
		`run`:                       `run`,
		`C:\Program Files\h\a.exe`:  `"C:\Program Files\h\a.exe"`,
		`C:\dir with space\`:        `"C:\dir with space\\"`,
		`say "hi"`:                  `"say \"hi\""`,
		`a\"b c`:                    `"a\\\"b c"`,
		`C:\ProgramData\h\agent.js`: `C:\ProgramData\h\agent.js`,
	} {
		if got := quoteArg(in); got != want {
			t.Errorf("quoteArg(%q) = %s, want %s", in, got, want)
		}
	}
	if got := commandLine([]string{`C:\Program Files\x.exe`, "run", "--config", `C:\a b\c.json`}); got !=
		`"C:\Program Files\x.exe" run --config "C:\a b\c.json"` {
		t.Errorf("commandLine %s", got)
	}
}

func TestTaskXML(t *testing.T) {
	b := taskXML(TaskSpec{Name: TaskName, Description: "worker <&>", ExePath: `C:\Program Files\hostgate\hostgate-agent.exe`,
		Args: []string{"worker", "--config", `C:\ProgramData\hostgate\agent.json`}})
	if len(b) < 2 || b[0] != 0xFF || b[1] != 0xFE || len(b)%2 != 0 {
		t.Fatalf("no UTF-16LE BOM: % x", b[:4])
	}
	u := make([]uint16, 0, len(b)/2-1)
	for i := 2; i < len(b); i += 2 {
		u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
	}
	doc := string(utf16.Decode(u))
	if !strings.HasPrefix(doc, `<?xml version="1.0" encoding="UTF-16"?>`) || !strings.Contains(doc, "\r\n") {
		t.Errorf("header/line ends: %q", doc[:60])
	}
	// Parse it (encoding/xml only reads UTF-8: drop the declaration).
	var task struct {
		Triggers struct {
			Logon *struct{ Enabled bool } `xml:"LogonTrigger"`
		}
		Principals struct {
			Principal struct {
				GroupID  string `xml:"GroupId"`
				RunLevel string
			}
		}
		RegistrationInfo struct{ Description string }
		Actions          struct {
			Exec struct{ Command, Arguments string }
		}
	}
	body := doc[strings.Index(doc, "?>")+2:]
	if err := xml.NewDecoder(bytes.NewReader([]byte(body))).Decode(&task); err != nil {
		t.Fatalf("task XML: %v", err)
	}
	if task.Triggers.Logon == nil || !task.Triggers.Logon.Enabled {
		t.Error("no enabled LogonTrigger")
	}
	if task.Principals.Principal.RunLevel != "HighestAvailable" || task.Principals.Principal.GroupID != "S-1-5-32-545" {
		t.Errorf("principal %+v", task.Principals.Principal)
	}
	if task.RegistrationInfo.Description != "worker <&>" {
		t.Errorf("description %q", task.RegistrationInfo.Description)
	}
	if task.Actions.Exec.Command != `C:\Program Files\hostgate\hostgate-agent.exe` ||
		task.Actions.Exec.Arguments != `worker --config C:\ProgramData\hostgate\agent.json` {
		t.Errorf("exec %+v", task.Actions.Exec)
	}
}

func TestToolArgs(t *testing.T) {
	if got, want := schtasksArgs(TaskName, `C:\t\task.xml`), []string{"/Create", "/F", "/TN", TaskName, "/XML", `C:\t\task.xml`}; !reflect.DeepEqual(got, want) {
		t.Errorf("schtasks %q", got)
	}
	want := []string{"advfirewall", "firewall", "add", "rule", "name=hostgate-agent", "dir=in", "action=allow", "protocol=TCP", "localport=23456"}
	if got := firewallArgs(FirewallRule{Name: FirewallRuleName, Port: 23456}); !reflect.DeepEqual(got, want) {
		t.Errorf("netsh %q", got)
	}
	if got := firewallDeleteArgs(FirewallRule{Name: FirewallRuleName}); !reflect.DeepEqual(got, []string{"advfirewall", "firewall", "delete", "rule", "name=hostgate-agent"}) {
		t.Errorf("netsh delete %q", got)
	}
	if err := toolError("netsh", errInjected, []byte("  The rule\r\n failed.\r\n")); err.Error() != "netsh: injected failure: The rule failed." {
		t.Errorf("toolError %q", err)
	}
	if err := toolError("netsh", errInjected, nil); err.Error() != "netsh: injected failure" {
		t.Errorf("toolError %q", err)
	}
}
