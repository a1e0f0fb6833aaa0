package e2e

import (
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// TestAgentLifecycle: enrol with install credentials, round-trip a command,
// stop, rotate, survive a hub restart.
func TestAgentLifecycle(t *testing.T) {
	e := NewEnv(t, false)
	hub := e.StartHub()
	cust := NewCustomer(t, hub)
	creds := cust.CreateHost(hub, "e2e-1")
	state := t.TempDir()

	agent := e.StartAgent(creds, state)
	start := time.Now()
	eventually.True(t, 10*time.Second, "ws_connected", func() bool { return cust.Connected(hub, creds.HostID) })
	t.Logf("connected %v after agent start", time.Since(start).Round(time.Millisecond))
	if s := cust.Ping(hub, creds.HostID); s != 200 {
		t.Fatalf("ping: %d, want 200", s)
	}

	agent.Stop()
	eventually.True(t, 5*time.Second, "ws_connected false after stop", func() bool { return !cust.Connected(hub, creds.HostID) })
	if s := cust.Ping(hub, creds.HostID); s != 409 {
		t.Errorf("ping of a stopped agent: %d, want 409 host_offline", s)
	}

	// The agent returns by itself from its saved state (no install token reuse).
	agent = e.StartAgent(creds, state)
	eventually.True(t, 10*time.Second, "reconnected", func() bool { return cust.Connected(hub, creds.HostID) })

	// A hub restart needs no operator.
	hub = hub.Restart()
	eventually.True(t, 30*time.Second, "back after hub restart", func() bool { return cust.Connected(hub, creds.HostID) })
	if s := cust.Ping(hub, creds.HostID); s != 200 {
		t.Fatalf("ping after restart: %d", s)
	}

	// rotate-secret drops the running agent; its old credentials are dead.
	var fresh Credentials
	if s := call(t, "POST", hub.URL+"/v1/api/hosts/"+creds.HostID+"/rotate-secret", cust.Key, nil, &fresh); s != 200 {
		t.Fatalf("rotate: %d", s)
	}
	eventually.True(t, 5*time.Second, "dropped after rotate", func() bool { return !cust.Connected(hub, creds.HostID) })
	// An observation window: the old agent retries within its backoff
	// (the first retry comes within 1 s) and must stay refused.
	time.Sleep(3 * time.Second)
	if cust.Connected(hub, creds.HostID) {
		t.Fatal("the agent came back with rotated-away credentials")
	}
	agent.Stop()

	e.StartAgent(fresh, t.TempDir())
	eventually.True(t, 10*time.Second, "online with new credentials", func() bool { return cust.Connected(hub, creds.HostID) })
	if s := cust.Ping(hub, creds.HostID); s != 200 {
		t.Fatalf("ping with new credentials: %d", s)
	}
}

// TestCommandsAcrossInstances: two hubs on one PostgreSQL and Redis; a
// command sent to either reaches an agent connected to the other.
func TestCommandsAcrossInstances(t *testing.T) {
	e := NewEnv(t, true)
	a, b := e.StartHub(), e.StartHub()
	cust := NewCustomer(t, a)
	onA := cust.CreateHost(a, "on-a")
	onB := cust.CreateHost(b, "on-b")
	e.StartAgent(onA, t.TempDir())
	// onB's credentials name hub b's address, so its agent joins b.
	e.StartAgent(onB, t.TempDir())
	for _, h := range []*Hub{a, b} {
		for _, id := range []string{onA.HostID, onB.HostID} {
			eventually.True(t, 10*time.Second, "presence seen cluster-wide", func() bool { return cust.Connected(h, id) })
		}
	}
	for i := range 20 {
		for _, h := range []*Hub{a, b} {
			for _, id := range []string{onA.HostID, onB.HostID} {
				if s := cust.Ping(h, id); s != 200 {
					t.Fatalf("round %d: ping %s via %s: %d", i, id, h.URL, s)
				}
			}
		}
	}
	// Deleting through b drops the agent held by a at once.
	if s := call(t, "DELETE", b.URL+"/v1/api/hosts/"+onA.HostID, cust.Key, nil, nil); s != 204 {
		t.Fatalf("delete: %d", s)
	}
	if s := cust.Ping(a, onA.HostID); s != 404 {
		t.Errorf("ping of a deleted host: %d, want 404", s)
	}
}
