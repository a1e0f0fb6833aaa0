package fileops

import (
	"path"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileopsEntryPath(t *testing.T) {
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"a.txt", "a.txt", true},
		{"dir/", "dir", true},
		{"dir/sub/f.bin", "dir/sub/f.bin", true},
		{"./x/./y", "x/y", true},
		{"./", "", true},
		{"a//b", "a/b", true},
		{`win\style\path.txt`, "win/style/path.txt", true},
		{"中文/名字.txt", "中文/名字.txt", true},
		{"file.", "file.", true},
		{"..foo", "..foo", true},
		{"CONFIG.SYS", "CONFIG.SYS", true},
		{"com10", "com10", true},

		{"", "", false},
		{"../../escape", "", false},
		{"..", "", false},
		{"a/../b", "", false},
		{"a/..", "", false},
		{"/abs", "", false},
		{"//server/share/x", "", false},
		{`..\x`, "", false},
		{`a\..\..\x`, "", false},
		{`\abs`, "", false},
		{`C:\Windows\x`, "", false},
		{"C:x", "", false},
		{"c:/x", "", false},
		{"file.txt:stream", "", false},
		{"nul\x00byte", "", false},
		{"...", "", false},
		{"a/.../b", "", false},
		{". .", "", false},
		{".. ", "", false},
		{"CON", "", false},
		{"dir/nul.txt", "", false},
		{"aux .log", "", false},
		{"Com1", "", false},
		{"LPT9.x", "", false},
		{"COM¹", "", false},
		{"conout$", "", false},
	}
	for _, tt := range tests {
		got, err := entryPath(tt.name)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("entryPath(%q) = %q, %v; want %q, ok %v", tt.name, got, err, tt.want, tt.ok)
		}
	}
}

// FuzzEntryPath: whatever the name, an accepted path is local on this
// system, has no parent or drive elements, and joined to a target stays
// inside it.
func FuzzEntryPath(f *testing.F) {
	for _, s := range []string{
		"a.txt", "dir/sub/", "../../escape", "/abs", `..\x`, `C:\x`, "a/./b", "CON.txt",
		"x:y", "....//..", "a/b/../../..", `\\?\C:\x`, "./", " ../ x", "中文/..",
	} {
		f.Add(s)
	}
	base := filepath.Join(string(filepath.Separator)+"target", "dir")
	f.Fuzz(func(t *testing.T, name string) {
		rel, err := entryPath(name)
		if err != nil {
			return
		}
		if strings.ContainsAny(rel, "\\:\x00") || strings.HasPrefix(rel, "/") {
			t.Fatalf("entryPath(%q) = %q: separator, colon or NUL left", name, rel)
		}
		if rel == "" {
			return
		}
		if path.Clean(rel) != rel {
			t.Fatalf("entryPath(%q) = %q: not clean", name, rel)
		}
		for _, el := range strings.Split(rel, "/") {
			if strings.Trim(el, ". ") == "" || isDeviceName(el) {
				t.Fatalf("entryPath(%q) = %q: element %q", name, rel, el)
			}
		}
		native := filepath.FromSlash(rel)
		if !filepath.IsLocal(native) {
			t.Fatalf("entryPath(%q) = %q: not local", name, rel)
		}
		joined := filepath.Join(base, native)
		if !strings.HasPrefix(joined, base+string(filepath.Separator)) {
			t.Fatalf("entryPath(%q) = %q: lands at %s, outside %s", name, rel, joined, base)
		}
	})
}
