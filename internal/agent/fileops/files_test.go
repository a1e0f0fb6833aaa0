package fileops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
)

func TestFileopsFileMk(t *testing.T) {
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "old.txt"), "old content")
	if err := os.Mkdir(filepath.Join(base, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, data, wantCode string
	}{
		{"new", filepath.Join(base, "new.txt"), "hello", ""},
		{"empty", filepath.Join(base, "empty.txt"), "", ""},
		{"replace", filepath.Join(base, "old.txt"), "new", ""},
		{"parents created", filepath.Join(base, "p", "q", "r.txt"), "中文\r\n", ""},
		{"a directory", filepath.Join(base, "dir"), "x", CodeIsADirectory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, "files.file_mk", tt.path, tt.data)
			wantCode(t, err, tt.wantCode)
			if err != nil {
				return
			}
			want := agentproto.FileResult{Path: tt.path, Changed: true, Bytes: int64(len(tt.data))}
			if res != want {
				t.Errorf("result = %+v, want %+v", res, want)
			}
			if got := readFile(t, tt.path); got != tt.data {
				t.Errorf("content = %q, want %q", got, tt.data)
			}
		})
	}
	assertNoTempFiles(t, base)
}

// assertNoTempFiles fails if a temporary file of writeAtomic is left
// anywhere under dir.
func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	for _, p := range tree(t, dir) {
		if strings.Contains(p, ".hostgate-") {
			t.Errorf("temporary file left behind: %s", p)
		}
	}
}

func TestFileopsFileMkFailureLeavesNothing(t *testing.T) {
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "f"), "x")
	// The parent chain runs into a file: nothing may be created.
	_, err := call(t, "files.file_mk", filepath.Join(base, "f", "a", "b.txt"), "data")
	if err == nil {
		t.Fatal("FILE_MK under a file succeeded")
	}
	if got := tree(t, base); len(got) != 1 || got[0] != "f" {
		t.Errorf("after the failure the directory holds %v", got)
	}
}

func TestFileopsFileRm(t *testing.T) {
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "f.txt"), "x")
	if err := os.Mkdir(filepath.Join(base, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, wantCode string
		wantChanged          bool
	}{
		{"file", filepath.Join(base, "f.txt"), "", true},
		{"absent", filepath.Join(base, "none.txt"), "", false},
		{"directory", filepath.Join(base, "dir"), CodeIsADirectory, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, "files.file_rm", tt.path, nil)
			wantCode(t, err, tt.wantCode)
			if err != nil {
				return
			}
			if fr := res.(agentproto.FileResult); fr.Changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v", fr.Changed, tt.wantChanged)
			}
			if _, err := os.Lstat(tt.path); !os.IsNotExist(err) {
				t.Errorf("%s still there: %v", tt.path, err)
			}
		})
	}
	if fi, err := os.Stat(filepath.Join(base, "dir")); err != nil || !fi.IsDir() {
		t.Error("FILE_RM removed a directory")
	}
}

func TestFileopsStrAd(t *testing.T) {
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "log.txt"), "line1\n")
	if err := os.Mkdir(filepath.Join(base, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, data, wantCode, wantContent string
		wantChanged                             bool
	}{
		{"append", filepath.Join(base, "log.txt"), "line2\n", "", "line1\nline2\n", true},
		{"append nothing", filepath.Join(base, "log.txt"), "", "", "line1\nline2\n", false},
		{"create", filepath.Join(base, "new.txt"), "first", "", "first", true},
		{"create empty", filepath.Join(base, "empty.txt"), "", "", "", true},
		{"missing directory", filepath.Join(base, "nodir", "x.txt"), "x", CodeNotFound, "", false},
		{"a directory", filepath.Join(base, "dir"), "x", CodeIsADirectory, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, "files.str_ad", tt.path, tt.data)
			wantCode(t, err, tt.wantCode)
			if err != nil {
				return
			}
			want := agentproto.FileResult{Path: tt.path, Changed: tt.wantChanged, Bytes: int64(len(tt.wantContent))}
			if res != want {
				t.Errorf("result = %+v, want %+v", res, want)
			}
			if got := readFile(t, tt.path); got != tt.wantContent {
				t.Errorf("content = %q, want %q", got, tt.wantContent)
			}
		})
	}
}

func TestFileopsFileMkKeepsSymlink(t *testing.T) {
	skipSymlinks(t)
	base := t.TempDir()
	real := filepath.Join(base, "real.cfg")
	writeFile(t, real, "old")
	link := filepath.Join(base, "link.cfg")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, "files.file_mk", link, "new"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if got := readFile(t, real); got != "new" {
		t.Errorf("target content = %q, want new", got)
	}
	dangling := filepath.Join(base, "dangling")
	if err := os.Symlink(filepath.Join(base, "missing"), dangling); err != nil {
		t.Fatal(err)
	}
	_, err := call(t, "files.file_mk", dangling, "x")
	wantCode(t, err, CodeNotFound)
}
