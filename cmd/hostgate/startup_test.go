package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"hostgate/internal/eventually"
	"hostgate/internal/pgtest"
)

// TestStartFailuresAreOneLine starts the real binary with each common
// mistake: it exits non-zero and, besides its JSON log, prints exactly one
// line, naming the setting at fault and never a secret or a stack.
func TestStartFailuresAreOneLine(t *testing.T) {
	bin := binary(t)
	missingDB := func(t *testing.T) []string {
		u, err := url.Parse(pgtest.NewDatabase(t)) // the server is up; the database below is not there
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/hostgate_missing_" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "_"))
		u.User = url.UserPassword(u.User.Username(), "Db-Secret-9")
		return []string{"HOSTGATE_DATABASE_URL=" + u.String()}
	}
	busyAddr := func(t *testing.T) []string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		return []string{"HOSTGATE_ADDR=" + ln.Addr().String()}
	}
	tests := []struct {
		name    string
		env     func(t *testing.T) []string
		setting string
		want    []string // in the line besides the setting
		args    []string // the command; serve when empty
	}{
		{"missing database", missingDB, "HOSTGATE_DATABASE_URL", []string{"does not exist on 127.0.0.1:5432", "createdb -h 127.0.0.1 -U postgres hostgate_missing_"}, nil},
		{"redis down", func(*testing.T) []string { return []string{"HOSTGATE_REDIS_URL=redis://:Redis-Secret-9@127.0.0.1:1/0"} },
			"HOSTGATE_REDIS_URL", []string{"cannot reach Redis at 127.0.0.1:1", "connection refused"}, nil},
		{"weak admin password", func(*testing.T) []string {
			return []string{"HOSTGATE_ADMIN_USERNAME=admin", "HOSTGATE_ADMIN_PASSWORD=short"}
		}, "HOSTGATE_ADMIN_PASSWORD", []string{"at least 8 bytes"}, nil},
		{"port in use", busyAddr, "HOSTGATE_ADDR", []string{"address already in use"}, nil},
		{"migrate with a missing database", missingDB, "HOSTGATE_DATABASE_URL", []string{"does not exist on 127.0.0.1:5432"}, []string{"migrate"}},
		{"admin create with redis down", func(*testing.T) []string { return []string{"HOSTGATE_REDIS_URL=redis://127.0.0.1:1/0"} },
			"HOSTGATE_REDIS_URL", []string{"cannot reach Redis"}, []string{"admin", "create", "--username", "bob", "--password", "long enough pw"}},
		{"malformed accepted signing keys", func(*testing.T) []string {
			return []string{"HOSTGATE_SIGNING_KEYS_ACCEPTED=" + goodKey + ",Acc-Secret-9"}
		}, "HOSTGATE_SIGNING_KEYS_ACCEPTED", []string{"entry 2 is not base64 of 32 bytes"}, nil},
		{"keys reseal with malformed accepted sealing keys", func(*testing.T) []string {
			return []string{"HOSTGATE_SEALING_KEYS_ACCEPTED=Acc-Secret-9," + goodKey}
		}, "HOSTGATE_SEALING_KEYS_ACCEPTED", []string{"entry 1 is not base64 of 32 bytes"}, []string{"keys", "reseal"}},
		{"data dir not a directory", func(t *testing.T) []string {
			return []string{"HOSTGATE_DATA_DIR=" + bin + "/data"} // under a file
		}, "HOSTGATE_DATA_DIR", []string{"not a directory"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := command(bin, t.TempDir(), tt.args...)
			cmd.Env = append(cmd.Env, "HOSTGATE_LOG_FORMAT=json", "HOSTGATE_ADDR=127.0.0.1:0")
			cmd.Env = append(cmd.Env, tt.env(t)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("still running after 30 s\n%s", stderr.String())
			}
			if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 1 {
				t.Errorf("exit: %v, want status 1", err)
			}
			lines := nonLogLines(stderr.String())
			if len(lines) != 1 {
				t.Fatalf("stderr has %d lines besides the log, want 1:\n%s", len(lines), stderr.String())
			}
			line := lines[0]
			if !strings.HasPrefix(line, "hostgate: "+tt.setting+": ") {
				t.Errorf("line = %q, want it to begin %q", line, "hostgate: "+tt.setting+": ")
			}
			for _, w := range tt.want {
				if !strings.Contains(line, w) {
					t.Errorf("line = %q, want it to contain %q", line, w)
				}
			}
			all := stdout.String() + stderr.String()
			for _, bad := range []string{"panic", "goroutine", "Db-Secret-9", "Redis-Secret-9", "=short", "Acc-Secret-9", goodKey} {
				if strings.Contains(all, bad) {
					t.Errorf("output contains %q:\n%s", bad, all)
				}
			}
			t.Log(line)
		})
	}
}

// goodKey is a well-formed key that must never be printed.
const goodKey = "bprXbRf8Dv8GlQ+E6VyqLdR/tCkBwoJp7HDXcppmWrU="

// nonLogLines are the lines of out that are not JSON log records.
func nonLogLines(out string) []string {
	var lines []string
	for l := range strings.Lines(out) {
		l = strings.TrimRight(l, "\n")
		if l == "" || json.Valid([]byte(l)) {
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

// TestStartAnnounces checks the words a good start prints beside the
// log: where the hub listens and, with no admin yet, how to make one.
func TestStartAnnounces(t *testing.T) {
	bin := binary(t)
	data := t.TempDir()
	for _, withAdmin := range []bool{false, true} {
		addr := freeAddr(t)
		cmd := command(bin, data)
		cmd.Env = append(cmd.Env, "HOSTGATE_LOG_FORMAT=json", "HOSTGATE_ADDR="+addr, "HOSTGATE_PUBLIC_URL=https://hub.example.com")
		if withAdmin {
			cmd.Env = append(cmd.Env, "HOSTGATE_ADMIN_USERNAME=root", "HOSTGATE_ADMIN_PASSWORD=bootstrap secret pw")
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		eventually.Error(t, 30*time.Second, "hub ready", func() error { return getStatus("http://"+addr+"/readyz", "", 200) })
		cmd.Process.Kill()
		cmd.Wait()
		lines := nonLogLines(stderr.String())
		want := []string{"hostgate: listening on http://" + addr + " (public URL https://hub.example.com)"}
		if !withAdmin {
			want = append(want, "hostgate: no admin yet: run hostgate admin create --username admin --password 'CHOOSE-A-PASSWORD' --role owner"+
				" (with this environment), or set HOSTGATE_ADMIN_USERNAME and HOSTGATE_ADMIN_PASSWORD and restart")
		}
		if strings.Join(lines, "\n") != strings.Join(want, "\n") {
			t.Errorf("admin %v: lines besides the log:\n%s\nwant:\n%s", withAdmin, strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestRedisDownCreatesNothing: with PostgreSQL up and Redis unreachable,
// the hub stops with one line naming HOSTGATE_REDIS_URL before it has
// created anything in the (fresh) database.
func TestRedisDownCreatesNothing(t *testing.T) {
	bin := binary(t)
	db := pgtest.NewDatabase(t)
	cmd := command(bin, t.TempDir())
	cmd.Env = append(cmd.Env, "HOSTGATE_LOG_FORMAT=json", "HOSTGATE_ADDR=127.0.0.1:0",
		"HOSTGATE_DATABASE_URL="+db, "HOSTGATE_REDIS_URL=redis://127.0.0.1:1/0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("still running after 30 s\n%s", stderr.String())
	}
	if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 1 {
		t.Errorf("exit: %v, want status 1", err)
	}
	if lines := nonLogLines(stderr.String()); len(lines) != 1 || !strings.HasPrefix(lines[0], "hostgate: HOSTGATE_REDIS_URL: cannot reach Redis") {
		t.Errorf("stderr besides the log = %q, want one line naming HOSTGATE_REDIS_URL", lines)
	}
	conn, err := pgx.Connect(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var tables []string
	rows, err := conn.Query(t.Context(), `SELECT table_schema || '.' || table_name FROM information_schema.tables
		WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tables) != 0 {
		t.Errorf("the failed start created %d tables: %v", len(tables), tables)
	}
}
