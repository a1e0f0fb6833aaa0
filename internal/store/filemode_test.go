//go:build unix

package store_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"hostgate/internal/store"
)

// TestOpenRestrictsDataFiles checks that the data directory ends 0700 and
// the database, its WAL and its shared-memory index 0600, whatever the
// umask and whatever modes they had, and that each change is logged.
// The database holds the signing and sealing keys.
//
// Not parallel: the umask belongs to the whole process. Go runs parallel
// tests only after every sequential one has finished, so nothing else in
// the package runs while it is changed.
func TestOpenRestrictsDataFiles(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })

	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, store.FileName)
	files := []string{db, db + "-wal", db + "-shm"}

	t.Run("existing world-readable directory", func(t *testing.T) {
		logs := openAndCheck(t, dir, files)
		wantChanges(t, logs, map[string][2]string{dir: {"0755", "0700"}})
	})
	t.Run("files left world-readable", func(t *testing.T) {
		// A clean close removes the WAL and index; a crash leaves them.
		for _, f := range files {
			if err := os.WriteFile(f, nil, 0o644); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
			if err := os.Chmod(f, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(dir, 0o711); err != nil {
			t.Fatal(err)
		}
		logs := openAndCheck(t, dir, files)
		want := map[string][2]string{dir: {"0711", "0700"}}
		for _, f := range files {
			want[f] = [2]string{"0644", "0600"}
		}
		wantChanges(t, logs, want)
	})
	t.Run("already private", func(t *testing.T) {
		wantChanges(t, openAndCheck(t, dir, files), nil)
	})
	t.Run("new directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "fresh")
		db := filepath.Join(dir, store.FileName)
		wantChanges(t, openAndCheck(t, dir, []string{db, db + "-wal", db + "-shm"}), nil)
	})
}

// openAndCheck opens the store in dir, checks the modes while it is open,
// closes it and returns what it logged.
func openAndCheck(t *testing.T, dir string, files []string) *bytes.Buffer {
	t.Helper()
	var logs bytes.Buffer
	s, err := store.Open(t.Context(), "", dir, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	wantMode(t, dir, 0o700)
	for _, f := range files {
		wantMode(t, f, 0o600)
	}
	return &logs
}

func wantMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %04o, want %04o", path, got, want)
	}
}

// wantChanges checks that the log has exactly one warning per changed path,
// naming its old and new mode, and nothing else at warning level or above.
func wantChanges(t *testing.T, logs *bytes.Buffer, want map[string][2]string) {
	t.Helper()
	got := map[string][2]string{}
	dec := json.NewDecoder(logs)
	for dec.More() {
		var line struct {
			Level, Msg, Path string
			Old              string `json:"old_mode"`
			New              string `json:"new_mode"`
		}
		if err := dec.Decode(&line); err != nil {
			t.Fatalf("log: %v", err)
		}
		if line.Level == "INFO" || line.Level == "DEBUG" {
			continue
		}
		if _, dup := got[line.Path]; dup || line.Level != "WARN" || line.Path == "" {
			t.Errorf("unexpected log line %+v", line)
		}
		got[line.Path] = [2]string{line.Old, line.New}
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("log for %s: got old/new mode %v, want %v", p, got[p], w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("log names %s, which needed no change", p)
		}
	}
}
