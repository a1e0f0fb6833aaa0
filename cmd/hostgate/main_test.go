package main

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
	waitReady(t, base+"/readyz")

	// The admin made by `admin create` logs in over HTTP.
	body := `{"username":"ops.lead","password":"long enough secret"}`
	resp, err := http.Post(base+"/v1/admin/auth/login", "application/json", strings.NewReader(body))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("admin login: %v %v", err, resp)
	}
	var auth struct{ Admin struct{ Role string } }
	json.NewDecoder(resp.Body).Decode(&auth)
	resp.Body.Close()
	if auth.Admin.Role != "operator" {
		t.Errorf("role = %q, want operator", auth.Admin.Role)
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
	for _, secret := range []string{"bootstrap secret pw", "long enough secret"} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("logs contain a password:\n%s", logs.String())
		}
	}
	if !strings.Contains(logs.String(), "created owner admin") {
		t.Errorf("no bootstrap admin log line:\n%s", logs.String())
	}
}

func waitReady(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s not ready within 30 s", url)
}
