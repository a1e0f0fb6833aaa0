package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// TestBackupRestore backs up a serving hub with `hostgate backup`, restores
// the file into a new data directory as the docs say (copy it in as
// hostgate.db) and finds the same user, host and balance on a hub started
// there.
func TestBackupRestore(t *testing.T) {
	bin := binary(t)
	data := t.TempDir()
	base := startHub(t, bin, data, "HOSTGATE_ADMIN_USERNAME=root", "HOSTGATE_ADMIN_PASSWORD=bootstrap secret pw")

	alice := `{"email":"alice@example.com","password":"alice long password"}`
	var reg struct {
		AccessToken string `json:"access_token"`
		User        struct{ ID string }
	}
	call(t, "POST", base+"/v1/public/auth/register", "", alice, 200, &reg)
	var adm struct {
		AccessToken string `json:"access_token"`
	}
	call(t, "POST", base+"/v1/admin/auth/login", "", `{"username":"root","password":"bootstrap secret pw"}`, 200, &adm)
	call(t, "POST", base+"/v1/admin/users/"+reg.User.ID+"/balance/adjust", adm.AccessToken, `{"tokens":42.5,"reason":"backup test"}`, 200, nil)
	var host struct{ ID string }
	call(t, "POST", base+"/v1/user/hosts", reg.AccessToken, `{"name":"web-1"}`, 200, &host)

	file := filepath.Join(t.TempDir(), "hostgate-backup.db")
	if out, err := command(bin, data, "backup", file).CombinedOutput(); err != nil || !strings.Contains(string(out), "backup written to "+file) {
		t.Fatalf("backup while serving: %v\n%s", err, out)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode = %v, want 0600", fi.Mode().Perm())
	}
	before := fi.Size()
	if out, err := command(bin, data, "backup", file).CombinedOutput(); err == nil || !strings.Contains(string(out), "already exists") {
		t.Errorf("backup over an existing file: %v\n%s", err, out)
	}
	if fi, err := os.Stat(file); err != nil || fi.Size() != before {
		t.Errorf("the refused backup changed the existing file: %v", err)
	}

	restored := filepath.Join(t.TempDir(), "restored")
	if err := os.Mkdir(restored, 0o700); err != nil {
		t.Fatal(err)
	}
	copyFile(t, file, filepath.Join(restored, "hostgate.db"))
	base2 := startHub(t, bin, restored)

	var login struct {
		AccessToken string `json:"access_token"`
		User        struct{ ID string }
	}
	call(t, "POST", base2+"/v1/public/auth/login", "", alice, 200, &login)
	if login.User.ID != reg.User.ID {
		t.Errorf("restored user id = %q, want %q", login.User.ID, reg.User.ID)
	}
	var bal struct{ Tokens float64 }
	call(t, "GET", base2+"/v1/user/billing/balance", login.AccessToken, "", 200, &bal)
	if bal.Tokens != 42.5 {
		t.Errorf("restored balance = %v, want 42.5", bal.Tokens)
	}
	var got struct{ Host struct{ Name string } }
	call(t, "GET", base2+"/v1/user/hosts/"+host.ID, login.AccessToken, "", 200, &got)
	if got.Host.Name != "web-1" {
		t.Errorf("restored host name = %q, want web-1", got.Host.Name)
	}
	// The admin, and the generated keys, came along too.
	call(t, "POST", base2+"/v1/admin/auth/login", "", `{"username":"root","password":"bootstrap secret pw"}`, 200, nil)
}

// TestBackupRefusals: PostgreSQL is pg_dump's job, and a data directory
// without a database has nothing to copy (and gets none created).
func TestBackupRefusals(t *testing.T) {
	bin := binary(t)
	data := t.TempDir()
	file := filepath.Join(t.TempDir(), "b.db")

	pg := command(bin, data, "backup", file)
	pg.Env = append(pg.Env, "HOSTGATE_DATABASE_URL=postgres://postgres@127.0.0.1:1/none?sslmode=disable")
	out, err := pg.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "pg_dump") || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 {
		t.Errorf("backup of PostgreSQL: %v, want one line naming pg_dump:\n%s", err, out)
	}
	if out, err := command(bin, data, "backup", file).CombinedOutput(); err == nil || !strings.Contains(string(out), "no database") {
		t.Errorf("backup of an empty data directory: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(data, "hostgate.db")); err == nil {
		t.Error("backup created a database in the data directory")
	}
	if _, err := os.Stat(file); err == nil {
		t.Errorf("a failed backup left %s behind", file)
	}
	if out, err := command(bin, data, "backup").CombinedOutput(); err == nil || !strings.Contains(string(out), "usage: hostgate backup FILE") {
		t.Errorf("backup without a file: %v\n%s", err, out)
	}
}

// startHub serves a hub from dataDir on a free loopback port until the
// test ends and returns its base URL.
func startHub(t *testing.T, bin, dataDir string, env ...string) string {
	t.Helper()
	addr := freeAddr(t)
	var logs bytes.Buffer
	serve := command(bin, dataDir)
	serve.Env = append(append(serve.Env, "HOSTGATE_ADDR="+addr), env...)
	serve.Stdout, serve.Stderr = &logs, &logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		serve.Process.Kill()
		serve.Wait()
		if t.Failed() {
			t.Logf("hub on %s:\n%s", dataDir, logs.String())
		}
	})
	base := "http://" + addr
	eventually.Error(t, 30*time.Second, "hub ready", func() error { return getStatus(base+"/readyz", "", 200) })
	return base
}

// call sends body (JSON, or none when empty) with a bearer token when not
// empty, requires status and decodes the answer into out when not nil.
func call(t *testing.T, method, url, token, body string, status int, out any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("%s %s: %d %s, want %d", method, url, resp.StatusCode, raw, status)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, url, raw, err)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
