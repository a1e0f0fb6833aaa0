package fileops

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"hostgate/internal/agentproto"
)

// run calls op through Handlers with path and data (marshalled to JSON
// unless it is a json.RawMessage), the way the agent does.
func run(t *testing.T, ctx context.Context, op, path string, data any) (any, error) {
	t.Helper()
	a := agentproto.ControlArgs{Path: path}
	switch d := data.(type) {
	case nil:
	case json.RawMessage:
		a.Data = d
	default:
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		a.Data = b
	}
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := Handlers()[op]
	if !ok {
		t.Fatalf("no handler for %s", op)
	}
	return h(ctx, raw)
}

// call is run with a background context.
func call(t *testing.T, op, path string, data any) (any, error) {
	t.Helper()
	return run(t, context.Background(), op, path, data)
}

// codeOf is the code of err ("" for nil; "not an agentproto.Error" for
// any other error, which the agent would report as failed).
func codeOf(err error) string {
	if err == nil {
		return ""
	}
	var ae *agentproto.Error
	if errors.As(err, &ae) {
		return ae.Code
	}
	return "not an agentproto.Error"
}

// wantCode fails the test unless err has the code want.
func wantCode(t *testing.T, err error, want string) {
	t.Helper()
	if got := codeOf(err); got != want {
		t.Fatalf("code = %q, want %q (err %v)", got, want, err)
	}
}

// writeFile creates a file with content in a test.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readFile reads a file in a test.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// tree lists every path under dir, relative and slash-separated, sorted.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// skipSymlinks skips a test that needs symbolic links on Windows: Wine 8's
// CreateSymbolicLinkW reports success but leaves no link that Lstat or
// EvalSymlinks can read (and real Windows needs a privilege for it). The
// code under test is the same on both platforms and runs on Linux.
func skipSymlinks(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Wine 8 creates no readable symbolic links (CreateSymbolicLinkW succeeds, Lstat then fails); tested on Linux")
	}
}
