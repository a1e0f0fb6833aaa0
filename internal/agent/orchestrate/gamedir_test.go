package orchestrate

import (
	"os"
	"path/filepath"
	"testing"

	"hostgate/internal/agentproto"
)

// layout makes the files (relative paths, '/'-separated) under a new
// temporary directory and returns it.
func layout(t *testing.T, files ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return root
}

func TestResolveGameDir(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		search  bool
		want    string // relative to the root; "" for the root itself
		wantErr string
	}{
		{"base holds the controller", []string{"GameCenter.exe", "a/GameCenter.exe"}, true, ".", ""},
		{"base holds it, no search", []string{"GameCenter.exe"}, false, ".", ""},
		{"below base without search", []string{"a/GameCenter.exe"}, false, "", CodeGameDirNotFound},
		{"one level below", []string{"x/GameCenter.exe"}, true, "x", ""},
		{"three levels below", []string{"a/b/c/GameCenter.exe"}, true, "a/b/c", ""},
		{"four levels is too deep", []string{"a/b/c/d/GameCenter.exe"}, true, "", CodeGameDirNotFound},
		{"breadth first: shallower wins over an earlier name", []string{"a/b/GameCenter.exe", "z/GameCenter.exe"}, true, "z", ""},
		{"same level: name order", []string{"b/x/GameCenter.exe", "a/y/GameCenter.exe"}, true, "a/y", ""},
		{"a directory of the controller's name is not it", []string{"GameCenter.exe/x", "q/GameCenter.exe"}, true, "q", ""},
		{"nothing anywhere", []string{"a/b.txt"}, true, "", CodeGameDirNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := layout(t, tt.files...)
			got, err := ResolveGameDir(root, agentproto.DefaultControllerExe, tt.search)
			if tt.wantErr != "" {
				if code(err) != tt.wantErr {
					t.Fatalf("got %q, %v; want %s", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(root, filepath.FromSlash(tt.want)); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

func TestResolveGameDirRefusals(t *testing.T) {
	root := layout(t, "f")
	if _, err := ResolveGameDir("relative/dir", "GameCenter.exe", true); code(err) != agentproto.CodeBadArgs {
		t.Errorf("relative base_path: %v, want invalid_args", err)
	}
	for _, base := range []string{filepath.Join(root, "nope"), filepath.Join(root, "f")} {
		if _, err := ResolveGameDir(base, "GameCenter.exe", true); code(err) != CodeGameDirNotFound {
			t.Errorf("%s: %v, want %s", base, err, CodeGameDirNotFound)
		}
	}
}
