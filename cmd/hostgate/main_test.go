package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// binary builds hostgate once per test run.
func binary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hostgate")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

func command(bin, dataDir string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOSTGATE_DATA_DIR="+dataDir, "HOSTGATE_LOG_FORMAT=text")
	return cmd
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func TestBinary(t *testing.T) {
	bin := binary(t)
	data := t.TempDir()

	out, err := command(bin, data, "--help").Output()
	if err != nil || !strings.Contains(string(out), "HOSTGATE_DATABASE_URL") || !strings.Contains(string(out), "admin create") {
		t.Fatalf("--help = %v\n%s", err, out)
	}
	if err := command(bin, data, "frobnicate").Run(); err == nil {
		t.Error("an unknown command exited 0")
	}
	if out, err := command(bin, data, "migrate").CombinedOutput(); err != nil || !strings.Contains(string(out), "migrations applied") {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	create := command(bin, data, "admin", "create", "--username", "Ops.Lead", "--password", "long enough secret", "--role", "operator")
	if out, err := create.CombinedOutput(); err != nil || !strings.Contains(string(out), "created admin ops.lead (operator)") {
		t.Fatalf("admin create: %v\n%s", err, out)
	}
	if out, err := command(bin, data, "admin", "create", "--username", "x1", "--password", "long enough secret", "--role", "god").CombinedOutput(); err == nil {
		t.Errorf("admin create with a bad role succeeded:\n%s", out)
	}

	addr := freeAddr(t)
	var logs bytes.Buffer
	serve := command(bin, data)
	serve.Env = append(serve.Env, "HOSTGATE_ADDR="+addr, "HOSTGATE_ADMIN_PASSWORD=bootstrap secret pw", "HOSTGATE_ADMIN_USERNAME=root")
	serve.Stdout, serve.Stderr = &logs, &logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer serve.Process.Kill()
	base := "http://" + addr
	eventually.Error(t, 30*time.Second, "hub ready", func() error { return getStatus(base+"/readyz", "", 200) })

	// The admin made by `admin create` logs in over HTTP.
	body := `{"username":"ops.lead","password":"long enough secret"}`
	resp, err := http.Post(base+"/v1/admin/auth/login", "application/json", strings.NewReader(body))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("admin login: %v %v", err, resp)
	}
	var auth struct {
		AccessToken string `json:"access_token"`
		Admin       struct{ Role string }
	}
	json.NewDecoder(resp.Body).Decode(&auth)
	resp.Body.Close()
	if auth.Admin.Role != "operator" {
		t.Errorf("role = %q, want operator", auth.Admin.Role)
	}

	// `admin disable`, run beside the serving hub, ends the admin's live
	// token within about a second; `admin enable` lets it sign in again.
	if out, err := command(bin, data, "admin", "disable", "ops.lead").CombinedOutput(); err != nil || !strings.Contains(string(out), "admin ops.lead is now disabled") {
		t.Fatalf("admin disable: %v\n%s", err, out)
	}
	eventually.Error(t, 2*time.Second, "the disabled admin's token refused", func() error {
		return getStatus(base+"/v1/admin/users", auth.AccessToken, 401)
	})
	if resp, err := http.Post(base+"/v1/admin/auth/login", "application/json", strings.NewReader(body)); err != nil || resp.StatusCode != 401 {
		t.Errorf("login of a disabled admin: %v %v, want 401", err, resp)
	}
	if out, err := command(bin, data, "admin", "enable", "ops.lead").CombinedOutput(); err != nil || !strings.Contains(string(out), "admin ops.lead is now active") {
		t.Fatalf("admin enable: %v\n%s", err, out)
	}
	if resp, err := http.Post(base+"/v1/admin/auth/login", "application/json", strings.NewReader(body)); err != nil || resp.StatusCode != 200 {
		t.Errorf("login after enable: %v %v, want 200", err, resp)
	}
	if out, err := command(bin, data, "admin", "disable", "nobody").CombinedOutput(); err == nil {
		t.Errorf("admin disable of an unknown admin succeeded:\n%s", out)
	}
	// `admin set-role` ends the admin's sessions as the console does; the
	// last enabled owner (root) can be neither disabled nor demoted.
	resp, err = http.Post(base+"/v1/admin/auth/login", "application/json", strings.NewReader(body))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("admin login: %v %v", err, resp)
	}
	json.NewDecoder(resp.Body).Decode(&auth)
	resp.Body.Close()
	if out, err := command(bin, data, "admin", "set-role", "ops.lead", "finance").CombinedOutput(); err != nil || !strings.Contains(string(out), "admin ops.lead is now finance") {
		t.Fatalf("admin set-role: %v\n%s", err, out)
	}
	eventually.Error(t, 2*time.Second, "the re-roled admin's token refused", func() error {
		return getStatus(base+"/v1/admin/users", auth.AccessToken, 401)
	})
	for _, args := range [][]string{{"disable", "root"}, {"set-role", "root", "viewer"}} {
		if out, err := command(bin, data, append([]string{"admin"}, args...)...).CombinedOutput(); err == nil || !strings.Contains(string(out), "last_owner") {
			t.Errorf("admin %v of the last owner: %v\n%s", args, err, out)
		}
	}

	serve.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- serve.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no exit within 20 s of SIGTERM\n%s", logs.String())
	}
	// SIGTERM is told in the log: the hub is stopping, then it has stopped.
	stopping, stopped := strings.Index(logs.String(), "msg=\"hostgate stopping\""), strings.Index(logs.String(), "msg=\"hostgate stopped\"")
	if stopping < 0 || stopped < stopping {
		t.Errorf("log lacks \"hostgate stopping\" followed by \"hostgate stopped\" after SIGTERM:\n%s", logs.String())
	}
	for _, secret := range []string{"bootstrap secret pw", "long enough secret"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("logs contain a password:\n%s", logs.String())
		}
	}
	if !strings.Contains(logs.String(), "created owner admin") {
		t.Errorf("no bootstrap admin log line:\n%s", logs.String())
	}
}

// getStatus is nil when GET url (with token, if any) answers status.
func getStatus(url, token string, status int) error {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != status {
		return fmt.Errorf("status %d, want %d", resp.StatusCode, status)
	}
	return nil
}
