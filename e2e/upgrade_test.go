//go:build linux

package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// buildAgentVersion builds hostgate-agent stamped with version into a
// fresh directory.
func buildAgentVersion(t *testing.T, version string) string {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "hostgate-agent")
	cmd := exec.Command("go", "build", "-o", out, "-ldflags", "-X hostgate/internal/agent.Version="+version, "hostgate/cmd/hostgate-agent")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build agent %s: %v\n%s", version, err, b)
	}
	return out
}

func fileSHA(t *testing.T, path string) (string, int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), len(b)
}

type adminHostView struct {
	Host struct {
		InstalledVersion string `json:"installed_version"`
	} `json:"host"`
	WSConnected bool `json:"ws_connected"`
	Upgrade     *struct {
		Version string `json:"version"`
		State   string `json:"state"`
		Reason  string `json:"reason"`
	} `json:"upgrade"`
}

// TestPushUpgradeEndToEnd: a running agent process is upgraded to a second
// build through the admin API and comes back as the new version in the
// same process (exec); an executable with a wrong SHA-256, and a file that
// is not an agent, are both refused while the agent keeps running.
func TestPushUpgradeEndToEnd(t *testing.T) {
	e := NewEnv(t, false)
	hub := e.StartHub()
	cust := NewCustomer(t, hub)
	creds := cust.CreateHost(hub, "upgrade")
	admin := adminToken(t, hub)

	// The agent runs from its own copy, as an installed agent does.
	_, built := binaries(t)
	exe := filepath.Join(t.TempDir(), "hostgate-agent")
	b, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	next := buildAgentVersion(t, "9.1.0")
	junk := filepath.Join(filepath.Dir(next), "junk")
	if err := os.WriteFile(junk, []byte("#!/bin/sh\necho hostgate-agent 9.3.0 but not really\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(next))))
	t.Cleanup(srv.Close)

	agent := e.StartAgentExe(exe, creds, t.TempDir())
	eventually.True(t, 15*time.Second, "agent connected", func() bool { return cust.Connected(hub, creds.HostID) })
	pid := agent.cmd.Process.Pid

	publish := func(version, file, sha string) {
		t.Helper()
		realSHA, size := fileSHA(t, filepath.Join(filepath.Dir(next), file))
		if sha == "" {
			sha = realSHA
		}
		body := map[string]any{"version": version, "exe_url": srv.URL + "/" + file, "exe_sha256": sha, "exe_size_bytes": size}
		if s := call(t, "POST", hub.URL+"/v1/admin/gateway-versions", admin, body, nil); s != 200 {
			t.Fatalf("publish %s: %d", version, s)
		}
	}
	view := func() adminHostView {
		var v adminHostView
		if s := call(t, "GET", hub.URL+"/v1/admin/hosts/"+creds.HostID, admin, nil, &v); s != 200 {
			t.Fatalf("admin host: %d", s)
		}
		return v
	}
	push := func(version string) {
		t.Helper()
		var res struct{ OK bool }
		if s := call(t, "POST", hub.URL+"/v1/admin/hosts/"+creds.HostID+"/push-upgrade", admin, map[string]string{"version": version}, &res); s != 200 || !res.OK {
			t.Fatalf("push %s: %d %+v", version, s, res)
		}
	}
	finished := func(version string) adminHostView {
		t.Helper()
		var v adminHostView
		eventually.True(t, 90*time.Second, "upgrade to "+version+" finished", func() bool {
			v = view()
			return v.Upgrade != nil && v.Upgrade.Version == version &&
				(v.Upgrade.State == "done" || v.Upgrade.State == "failed" || v.Upgrade.State == "rolled_back")
		})
		return v
	}

	publish("9.1.0", "hostgate-agent", "")
	start := time.Now()
	push("9.1.0")
	v := finished("9.1.0")
	if v.Upgrade.State != "done" {
		t.Fatalf("upgrade ended %s: %s", v.Upgrade.State, v.Upgrade.Reason)
	}
	t.Logf("upgrade done %v after the push", time.Since(start).Round(time.Millisecond))
	eventually.True(t, 15*time.Second, "installed_version 9.1.0", func() bool {
		v = view()
		return v.Host.InstalledVersion == "9.1.0" && v.WSConnected
	})
	if agent.cmd.ProcessState != nil || agent.cmd.Process.Pid != pid {
		t.Fatal("the agent process did not survive its upgrade")
	}
	if got, _ := fileSHA(t, exe); got != mustSHA(t, next) {
		t.Fatal("the executable on disk is not the new build")
	}
	if s := cust.Ping(hub, creds.HostID); s != 200 {
		t.Fatalf("ping after the upgrade: %d", s)
	}

	// Wrong SHA-256: refused, the 9.1.0 agent keeps running unchanged.
	publish("9.2.0", "hostgate-agent", strings.Repeat("0", 64))
	push("9.2.0")
	v = finished("9.2.0")
	if v.Upgrade.State != "failed" || !strings.Contains(v.Upgrade.Reason, "sha256") {
		t.Fatalf("wrong hash: %s %q, want failed naming the sha256", v.Upgrade.State, v.Upgrade.Reason)
	}
	// A file with the right hash that is not an agent of that version.
	publish("9.3.0", "junk", "")
	push("9.3.0")
	v = finished("9.3.0")
	if v.Upgrade.State != "failed" {
		t.Fatalf("junk executable: %s %q, want failed", v.Upgrade.State, v.Upgrade.Reason)
	}
	t.Logf("junk refused: %s", v.Upgrade.Reason)

	if got, _ := fileSHA(t, exe); got != mustSHA(t, next) {
		t.Fatal("a refused upgrade changed the executable")
	}
	if v = view(); v.Host.InstalledVersion != "9.1.0" || !v.WSConnected {
		t.Fatalf("after refused upgrades: %+v", v)
	}
	if s := cust.Ping(hub, creds.HostID); s != 200 {
		t.Fatalf("ping after refused upgrades: %d", s)
	}
}

func mustSHA(t *testing.T, path string) string {
	t.Helper()
	s, _ := fileSHA(t, path)
	return s
}
