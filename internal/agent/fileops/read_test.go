package fileops

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
)

func TestFileopsStrRd(t *testing.T) {
	base := t.TempDir()
	binary := "\xff\xfe\x00bin"
	writeFile(t, filepath.Join(base, "text.txt"), "héllo 中文\n")
	writeFile(t, filepath.Join(base, "bin.dat"), binary)
	writeFile(t, filepath.Join(base, "empty"), "")
	writeFile(t, filepath.Join(base, "max"), strings.Repeat("a", agentproto.MaxReadBytes))
	writeFile(t, filepath.Join(base, "big"), strings.Repeat("a", agentproto.MaxReadBytes+1))
	escapes := strings.Repeat("<\x01", agentproto.MaxReadBytes/2)
	writeFile(t, filepath.Join(base, "escapes"), escapes)
	if err := os.Mkdir(filepath.Join(base, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, wantCode, wantEnc, wantContent string
		wantBytes                                  int64
	}{
		{"utf-8", "text.txt", "", "utf-8", "héllo 中文\n", int64(len("héllo 中文\n"))},
		{"binary", "bin.dat", "", "base64", base64.StdEncoding.EncodeToString([]byte(binary)), int64(len(binary))},
		{"empty", "empty", "", "utf-8", "", 0},
		{"at the limit", "max", "", "utf-8", strings.Repeat("a", agentproto.MaxReadBytes), agentproto.MaxReadBytes},
		{"over the limit", "big", CodeFileTooLarge, "", "", 0},
		// Valid UTF-8 whose JSON escapes would pass the message limit.
		{"escape-heavy text", "escapes", "", "base64", base64.StdEncoding.EncodeToString([]byte(escapes)), agentproto.MaxReadBytes},
		{"missing", "nope", CodeNotFound, "", "", 0},
		{"directory", "dir", CodeIsADirectory, "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(base, tt.file)
			res, err := call(t, "files.str_rd", path, nil)
			wantCode(t, err, tt.wantCode)
			if err != nil {
				if !strings.Contains(err.Error(), path) {
					t.Errorf("message %q does not name %s", err, path)
				}
				return
			}
			want := agentproto.ReadResult{Path: path, Content: tt.wantContent, Encoding: tt.wantEnc, Bytes: tt.wantBytes}
			if res != want {
				t.Errorf("result = %.80v, want %.80v", res, want)
			}
			if b, err := json.Marshal(res); err != nil || len(b) > agentproto.MaxMessage-4096 {
				t.Errorf("result JSON is %d bytes (%v), over the message limit", len(b), err)
			}
		})
	}
}

func TestFileopsStrRm(t *testing.T) {
	base := t.TempDir()
	if err := os.Mkdir(filepath.Join(base, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(base, "big"), strings.Repeat("a", agentproto.MaxReadBytes+1))
	tests := []struct {
		name, content, data, wantCode, wantContent string
		wantRemoved                                int
	}{
		{"several", "a=1\nbad\nb=2\nbad\n", "bad\n", "", "a=1\nb=2\n", 2},
		{"non-overlapping", "aaaa", "aa", "", "", 2},
		{"none", "keep me", "zzz", "", "keep me", 0},
		{"all", "xx", "x", "", "", 2},
		{"unicode", "中文中", "中", "", "文", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(base, tt.name+".txt")
			writeFile(t, path, tt.content)
			res, err := call(t, "files.str_rm", path, tt.data)
			wantCode(t, err, tt.wantCode)
			want := agentproto.RemoveStringResult{Path: path, Removed: tt.wantRemoved, Bytes: int64(len(tt.wantContent))}
			if res != want {
				t.Errorf("result = %+v, want %+v", res, want)
			}
			if got := readFile(t, path); got != tt.wantContent {
				t.Errorf("content = %q, want %q", got, tt.wantContent)
			}
		})
	}
	for _, tt := range []struct{ name, file, code string }{
		{"missing", "nope", CodeNotFound},
		{"directory", "dir", CodeIsADirectory},
		{"over the limit", "big", CodeFileTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, "files.str_rm", filepath.Join(base, tt.file), "a")
			wantCode(t, err, tt.code)
		})
	}
	assertNoTempFiles(t, base)
}

func TestFileopsStrRmNoMatchLeavesFileUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.txt")
	writeFile(t, path, "content")
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, "files.str_rm", path, "absent"); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !before.ModTime().Equal(after.ModTime()) {
		t.Error("the file was rewritten although nothing matched")
	}
}
