package fileops

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"hostgate/internal/agentproto"
)

func TestFileopsHandlersCoverTheFileOperations(t *testing.T) {
	want := []string{
		"files.dir_mk", "files.dir_rm", "files.download", "files.file_mk", "files.file_rm",
		"files.str_ad", "files.str_rd", "files.str_rm", "files.unzip",
	}
	got := slices.Sorted(maps.Keys(Handlers()))
	if !slices.Equal(got, want) {
		t.Fatalf("ops = %v, want %v", got, want)
	}
}

func TestFileopsArgsAreCheckedBeforeAnything(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "x")
	dl := func(d agentproto.DownloadData) json.RawMessage {
		b, _ := json.Marshal(d)
		return b
	}
	tests := []struct {
		name string
		ctl  int64
		path string
		data any
	}{
		{"relative path", agentproto.CtlDirMk, "rel/dir", nil},
		{"dot path", agentproto.CtlFileRm, ".", nil},
		{"missing path", agentproto.CtlStrRd, "", nil},
		{"NUL in path", agentproto.CtlDirRm, abs + "\x00y", nil},
		{"data not a string", agentproto.CtlFileMk, abs, json.RawMessage(`{"a":1}`)},
		{"STR_RM without data", agentproto.CtlStrRm, abs, ""},
		{"unzip without target", agentproto.CtlZipToDir, abs, ""},
		{"unzip to a relative target", agentproto.CtlZipToDir, abs, "out"},
		{"download without url", agentproto.CtlDownFile, abs, json.RawMessage(`{}`)},
		{"download ftp url", agentproto.CtlDownFile, abs, dl(agentproto.DownloadData{URL: "ftp://h/x"})},
		{"download unknown field", agentproto.CtlDownFile, abs, json.RawMessage(`{"url":"http://h/x","mode":1}`)},
		{"download bad sha256", agentproto.CtlDownFile, abs, dl(agentproto.DownloadData{URL: "http://h/x", SHA256: "abc"})},
		{"download timeout too long", agentproto.CtlDownFile, abs, dl(agentproto.DownloadData{URL: "http://h/x", TimeoutS: 99999})},
		{"download relative path", agentproto.CtlDownFile, "x", dl(agentproto.DownloadData{URL: "http://h/x"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t, agentproto.OpName(tt.ctl), tt.path, tt.data)
			wantCode(t, err, agentproto.CodeBadArgs)
		})
	}
}

func TestFileopsArgsNotJSON(t *testing.T) {
	_, err := Handlers()["files.dir_mk"](context.Background(), json.RawMessage(`[1]`))
	wantCode(t, err, agentproto.CodeBadArgs)
}

func TestFileopsCancelledBeforeStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := run(t, ctx, "files.dir_mk", dir, nil)
	wantCode(t, err, agentproto.CodeFailed)
}
