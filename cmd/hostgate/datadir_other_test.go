//go:build !windows

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUnwritableDataDirIsOneLine: a data directory the hub may not create
// or write (a service user without rights on /var/lib, say) ends the real
// binary with exit 1 and one line naming HOSTGATE_DATA_DIR and the cause.
// As root, who may write anywhere, the binary runs as nobody.
func TestUnwritableDataDirIsOneLine(t *testing.T) {
	// Outside t.TempDir, whose parent only its owner may enter.
	base, err := os.MkdirTemp("", "hostgate-datadir-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(base, "ro"), 0o755); os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "hostgate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ro := filepath.Join(base, "ro") // read-only: nothing can be made in it
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, dir, want string }{
		{"missing under a read-only parent", filepath.Join(ro, "data"), "mkdir " + filepath.Join(ro, "data") + ": permission denied"},
	}
	if os.Geteuid() == 0 {
		// Only as another user: the owner may restrict its own directory
		// to 0700, which the hub does, and then write in it.
		cases = append(cases, struct{ name, dir, want string }{"existing, another user's", ro, "cannot be restricted to 0700"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(), "HOSTGATE_DATA_DIR="+tc.dir, "HOSTGATE_LOG_FORMAT=json", "HOSTGATE_ADDR=127.0.0.1:0",
				"HOSTGATE_DATABASE_URL=", "HOSTGATE_REDIS_URL=")
			if os.Geteuid() == 0 {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running after 30 s\n%s", stderr.String())
			}
			if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 1 {
				t.Errorf("exit: %v, want status 1", err)
			}
			lines := nonLogLines(stderr.String())
			if len(lines) != 1 {
				t.Fatalf("stderr has %d lines besides the log, want 1:\n%s", len(lines), stderr.String())
			}
			prefix := "hostgate: HOSTGATE_DATA_DIR: cannot keep the SQLite database in " + strconv.Quote(tc.dir) + ": "
			if l := lines[0]; !strings.HasPrefix(l, prefix) || !strings.Contains(l, tc.want) ||
				!strings.HasSuffix(l, "; make it a directory this user can write, or point HOSTGATE_DATA_DIR elsewhere") {
				t.Errorf("line = %q, want %q…%q…", l, prefix, tc.want)
			}
			if strings.Contains(stderr.String(), "goroutine") {
				t.Errorf("a stack trace:\n%s", stderr.String())
			}
			if _, err := os.Stat(filepath.Join(tc.dir, "hostgate.db")); err == nil {
				t.Error("a database was created")
			}
		})
	}
}
