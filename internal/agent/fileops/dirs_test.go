package fileops

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"hostgate/internal/agentproto"
)

func TestFileopsDirMk(t *testing.T) {
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "file"), "x")
	if err := os.Mkdir(filepath.Join(base, "exists"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		path        string
		wantCode    string
		wantChanged bool
	}{
		{"new with parents", filepath.Join(base, "a", "b", "c"), "", true},
		{"existing", filepath.Join(base, "exists"), "", false},
		{"file in the way", filepath.Join(base, "file"), CodeNotADirectory, false},
		{"unclean path", filepath.Join(base, "exists") + string(filepath.Separator) + ".." + string(filepath.Separator) + "n", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, "files.dir_mk", tt.path, nil)
			wantCode(t, err, tt.wantCode)
			if err != nil {
				return
			}
			fr := res.(agentproto.FileResult)
			if fr.Changed != tt.wantChanged || fr.Path != filepath.Clean(tt.path) {
				t.Errorf("result = %+v, want changed %v path %s", fr, tt.wantChanged, filepath.Clean(tt.path))
			}
			if fi, err := os.Stat(tt.path); err != nil || !fi.IsDir() {
				t.Errorf("%s is not a directory afterwards: %v", tt.path, err)
			}
		})
	}
}

func TestFileopsDirMkUnderAFile(t *testing.T) {
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "file"), "x")
	_, err := call(t, "files.dir_mk", filepath.Join(base, "file", "sub"), nil)
	// Linux says ENOTDIR; Windows says the path was not found.
	if c := codeOf(err); c != CodeNotADirectory && c != CodeNotFound {
		t.Fatalf("code = %q (%v), want not_a_directory or not_found", c, err)
	}
}

func TestFileopsDirRm(t *testing.T) {
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "tree", "a", "b.txt"), "x")
	writeFile(t, filepath.Join(base, "tree", "c.txt"), "y")
	writeFile(t, filepath.Join(base, "file"), "x")
	tests := []struct {
		name        string
		path        string
		wantCode    string
		wantChanged bool
	}{
		{"tree", filepath.Join(base, "tree"), "", true},
		{"absent", filepath.Join(base, "nothing"), "", false},
		{"a file", filepath.Join(base, "file"), CodeNotADirectory, false},
		{"volume root", filepath.VolumeName(base) + string(filepath.Separator), agentproto.CodeBadArgs, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(t, "files.dir_rm", tt.path, nil)
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
	if readFile(t, filepath.Join(base, "file")) != "x" {
		t.Error("the file DIR_RM refused was changed")
	}
}

func TestFileopsDirRmSymlinkIsNotFollowed(t *testing.T) {
	skipSymlinks(t)
	base := t.TempDir()
	writeFile(t, filepath.Join(base, "real", "keep.txt"), "x")
	link := filepath.Join(base, "link")
	if err := os.Symlink(filepath.Join(base, "real"), link); err != nil {
		t.Fatal(err)
	}
	_, err := call(t, "files.dir_rm", link, nil)
	wantCode(t, err, CodeNotADirectory)
	if readFile(t, filepath.Join(base, "real", "keep.txt")) != "x" {
		t.Error("the link's target was touched")
	}
}

func TestFileopsIsVolumeRoot(t *testing.T) {
	type tc struct {
		path string
		want bool
	}
	tests := []tc{{"/", true}, {"/tmp", false}, {"/a/b", false}}
	if runtime.GOOS == "windows" {
		tests = []tc{
			{`C:\`, true}, {`c:\`, true}, {`C:\Windows`, false},
			{`\\server\share\`, true}, {`\\server\share`, true}, {`\\server\share\dir`, false},
			{`\\?\C:\`, true}, {`\\?\C:\x`, false},
		}
	}
	for _, tt := range tests {
		if got := isVolumeRoot(filepath.Clean(tt.path)); got != tt.want {
			t.Errorf("isVolumeRoot(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
