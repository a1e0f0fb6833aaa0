//go:build linux

package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// TestHubKilledDuringUpgrade: the hub is killed with SIGKILL right after an
// agent upgrade is pushed, while the agent downloads and swaps, and is
// restarted on the same store. The agent ends connected and answering on
// one executable, and the hub reports that executable's version: the new
// build with the upgrade done, or the old one with nothing swapped — never
// a version the agent is not running.
func TestHubKilledDuringUpgrade(t *testing.T) {
	t.Parallel()
	e := NewEnv(t, false)
	hub := e.StartHub(freeAddr(t))
	cust := NewCustomer(t, hub)
	creds := cust.CreateHost(hub, "upgrade-crash")

	_, built := binaries(t)
	exe := filepath.Join(t.TempDir(), "hostgate-agent")
	b, err := os.ReadFile(built)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	oldSHA := mustSHA(t, exe)
	next := buildAgentVersion(t, "9.4.0")
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(next))))
	t.Cleanup(srv.Close)

	agent := e.StartAgentExe(exe, creds, t.TempDir())
	eventually.True(t, 15*time.Second, "agent connected", func() bool { return cust.Connected(hub, creds.HostID) })
	view := func(h *Hub) adminHostView {
		var v adminHostView
		if s := call(t, "GET", h.URL+"/v1/admin/hosts/"+creds.HostID, adminToken(t, h), nil, &v); s != 200 {
			t.Fatalf("admin host: %d", s)
		}
		return v
	}
	oldVersion := view(hub).Host.InstalledVersion
	sha, size := fileSHA(t, next)
	admin := adminToken(t, hub)
	if s := call(t, "POST", hub.URL+"/v1/admin/gateway-versions", admin, map[string]any{"version": "9.4.0",
		"exe_url": srv.URL + "/hostgate-agent", "exe_sha256": sha, "exe_size_bytes": size}, nil); s != 200 {
		t.Fatalf("publish: %d", s)
	}
	var res struct{ OK bool }
	if s := call(t, "POST", hub.URL+"/v1/admin/hosts/"+creds.HostID+"/push-upgrade", admin, map[string]string{"version": "9.4.0"}, &res); s != 200 || !res.OK {
		t.Fatalf("push: %d %+v", s, res)
	}
	hub.kill9()
	hub = e.StartHub(hub.addr)

	var v adminHostView
	eventually.True(t, 60*time.Second, "agent connected and reported consistently", func() bool {
		v = view(hub)
		if !v.WSConnected {
			return false
		}
		onDisk := mustSHA(t, exe)
		switch {
		case onDisk == sha:
			return v.Host.InstalledVersion == "9.4.0" && v.Upgrade != nil && v.Upgrade.State == "done"
		case onDisk == oldSHA:
			// Not swapped: the old version, and the upgrade ended or never
			// reached the agent (requested, until the hub's sweep).
			settled := v.Upgrade == nil || v.Upgrade.State == "failed" || v.Upgrade.State == "rolled_back" || v.Upgrade.State == "requested"
			return v.Host.InstalledVersion == oldVersion && settled
		}
		return false
	})
	if s := cust.Ping(hub, creds.HostID); s != 200 {
		t.Fatalf("ping after the crash: %d", s)
	}
	if agent.cmd.ProcessState != nil {
		t.Fatal("the agent process exited")
	}
	state := "none"
	if v.Upgrade != nil {
		state = v.Upgrade.State
	}
	t.Logf("hub killed mid-upgrade: agent on %s (upgrade %s), connected, ping 200", v.Host.InstalledVersion, state)
}
