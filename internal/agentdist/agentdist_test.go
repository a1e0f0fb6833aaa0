package agentdist_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"hostgate/internal/agentdist"
)

func sum(b string) string {
	s := sha256.Sum256([]byte(b))
	return hex.EncodeToString(s[:])
}

func TestParseName(t *testing.T) {
	for _, c := range []struct {
		name, os, arch string
		ok             bool
	}{
		{"hostgate-agent-windows-amd64.exe", "windows", "amd64", true},
		{"hostgate-agent-windows-386.exe", "windows", "386", true},
		{"hostgate-agent-linux-amd64", "linux", "amd64", true},
		{"hostgate-agent-linux-arm64", "linux", "arm64", true},
		{"hostgate-agent-windows-amd64", "", "", false}, // windows needs .exe
		{"hostgate-agent-linux-amd64.exe", "", "", false},
		{"hostgate-agent-linux", "", "", false},
		{"hostgate-agent-linux-amd64.tar.gz", "", "", false},
		{"hostgate-linux-amd64", "", "", false},
		{"README.md", "", "", false},
		{"VERSION", "", "", false},
		{"SHA256SUMS", "", "", false},
	} {
		goos, goarch, ok := agentdist.ParseName(c.name)
		if goos != c.os || goarch != c.arch || ok != c.ok {
			t.Errorf("ParseName(%q) = %q, %q, %v; want %q, %q, %v", c.name, goos, goarch, ok, c.os, c.arch, c.ok)
		}
		if ok && agentdist.FileName(goos, goarch) != c.name {
			t.Errorf("FileName(%q, %q) = %q", goos, goarch, agentdist.FileName(goos, goarch))
		}
	}
}

func TestDist(t *testing.T) {
	fsys := fstest.MapFS{
		"hostgate-agent-windows-amd64.exe": {Data: []byte("MZ windows")},
		"hostgate-agent-linux-arm64":       {Data: []byte("ELF arm64")},
		"hostgate-agent-linux-amd64":       {Data: []byte("ELF amd64!")},
		"README.md":                        {Data: []byte("make build fills this")},
		"VERSION":                          {Data: []byte("0.4.0-3-gabc\n")},
		"sub/hostgate-agent-linux-386":     {Data: []byte("not at the top")},
	}
	d, err := agentdist.New(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	if d.Version() != "0.4.0-3-gabc" || d.Source() != "test" {
		t.Errorf("version %q, source %q", d.Version(), d.Source())
	}
	want := []agentdist.Binary{
		{OS: "linux", Arch: "amd64", Name: "hostgate-agent-linux-amd64", SHA256: sum("ELF amd64!"), Size: 10},
		{OS: "linux", Arch: "arm64", Name: "hostgate-agent-linux-arm64", SHA256: sum("ELF arm64"), Size: 9},
		{OS: "windows", Arch: "amd64", Name: "hostgate-agent-windows-amd64.exe", SHA256: sum("MZ windows"), Size: 10},
	}
	got := d.List()
	if len(got) != len(want) {
		t.Fatalf("List = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("List[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if b, ok := d.Binary("windows", "amd64"); !ok || b != want[2] {
		t.Errorf("Binary(windows, amd64) = %+v, %v", b, ok)
	}
	if b := want[2]; b.URL("https://hub.example.com/") != "https://hub.example.com/download/hostgate-agent-windows-amd64.exe" {
		t.Errorf("URL = %q", b.URL("https://hub.example.com/"))
	}
	for _, c := range [][2]string{{"windows", "386"}, {"darwin", "arm64"}, {"linux", "386"}} {
		if _, ok := d.Binary(c[0], c[1]); ok {
			t.Errorf("Binary(%s, %s) found", c[0], c[1])
		}
	}
	sums := "" + sum("ELF amd64!") + "  hostgate-agent-linux-amd64\n" +
		sum("ELF arm64") + "  hostgate-agent-linux-arm64\n" +
		sum("MZ windows") + "  hostgate-agent-windows-amd64.exe\n"
	if string(d.SHA256SUMS()) != sums {
		t.Errorf("SHA256SUMS =\n%s\nwant\n%s", d.SHA256SUMS(), sums)
	}

	f, b, err := d.Open("hostgate-agent-linux-arm64")
	if err != nil || b != want[1] {
		t.Fatalf("Open = %+v, %v", b, err)
	}
	body, _ := io.ReadAll(f)
	f.Close()
	if string(body) != "ELF arm64" {
		t.Errorf("body %q", body)
	}
	if data, err := d.ReadFile("hostgate-agent-windows-amd64.exe"); err != nil || string(data) != "MZ windows" {
		t.Errorf("ReadFile = %q, %v", data, err)
	}
	for _, name := range []string{"README.md", "VERSION", "hostgate-agent-linux-386", "../hostgate-agent-linux-amd64", ""} {
		if _, _, err := d.Open(name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) = %v, want not exist", name, err)
		}
	}

	// A file rewritten after start is refused rather than served under
	// the old checksum.
	fsys["hostgate-agent-linux-arm64"] = &fstest.MapFile{Data: []byte("ELF arm65"), ModTime: time.Unix(1, 0)}
	if _, _, err := d.Open("hostgate-agent-linux-arm64"); !errors.Is(err, agentdist.ErrChanged) {
		t.Errorf("Open of a changed file = %v", err)
	}
	if _, err := d.ReadFile("hostgate-agent-linux-arm64"); !errors.Is(err, agentdist.ErrChanged) {
		t.Errorf("ReadFile of a changed file = %v", err)
	}
}

func TestEmpty(t *testing.T) {
	for name, fsys := range map[string]fs.FS{
		"empty":       fstest.MapFS{},
		"placeholder": fstest.MapFS{"README.md": {Data: []byte("make build fills this")}},
	} {
		d, err := agentdist.New(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.List()) != 0 || d.Version() != "" || len(d.SHA256SUMS()) != 0 {
			t.Errorf("%s: %+v %q %q", name, d.List(), d.Version(), d.SHA256SUMS())
		}
		if _, ok := d.Binary("windows", "amd64"); ok {
			t.Errorf("%s: found windows/amd64", name)
		}
	}
}

func TestOpenDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hostgate-agent-linux-amd64"), []byte("ELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := agentdist.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := d.Binary("linux", "amd64"); !ok || b.SHA256 != sum("ELF") || d.Source() != dir {
		t.Errorf("Binary = %+v, %v; source %q", b, ok, d.Source())
	}
	if _, err := agentdist.Open(filepath.Join(dir, "missing")); err == nil {
		t.Error("Open of a missing directory succeeded")
	}
	if _, err := agentdist.Open(filepath.Join(dir, "hostgate-agent-linux-amd64")); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("Open of a file = %v", err)
	}
	// The built-in set always opens: on a fresh clone it holds only the
	// placeholder.
	if _, err := agentdist.Open(""); err != nil {
		t.Errorf("Open(\"\") = %v", err)
	}
}
