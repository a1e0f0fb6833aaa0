//go:build unix

package fileops

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestFileopsRewritesKeepMode(t *testing.T) {
	base := t.TempDir()
	tests := []struct {
		name, op, data string
		mode           os.FileMode
	}{
		{"FILE_MK private", "files.file_mk", "new", 0o600},
		{"FILE_MK executable", "files.file_mk", "#!/bin/sh\n", 0o755},
		{"STR_RM private", "files.str_rm", "secret", 0o640},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(base, tt.name)
			writeFile(t, path, "a secret b")
			if err := os.Chmod(path, tt.mode); err != nil {
				t.Fatal(err)
			}
			if _, err := call(t, tt.op, path, tt.data); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tt.mode {
				t.Errorf("mode = %v, want %v", fi.Mode().Perm(), tt.mode)
			}
		})
	}
	t.Run("new file", func(t *testing.T) {
		path := filepath.Join(base, "fresh")
		if _, err := call(t, "files.file_mk", path, "x"); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != newFileMode {
			t.Errorf("mode of a new file = %v (%v), want %v", fi.Mode().Perm(), err, newFileMode)
		}
	})
}

func TestFileopsStrRdRefusesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	// Opening a FIFO would block until a writer comes; it must be refused
	// from its Stat.
	_, err := call(t, "files.str_rd", path, nil)
	wantCode(t, err, "failed")
}
