package hubtest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"hostgate/internal/agent"
	"hostgate/internal/hosts"
)

// ConnectAgent creates a host for the user ownerID with fresh install
// credentials, runs an in-process agent for it (change lets a test adjust
// its config) and waits until the hub has it connected. The agent stops
// when the test ends. It returns the host id.
func (h *Hub) ConnectAgent(t testing.TB, ownerID string, change func(*agent.Config)) string {
	t.Helper()
	host, c, err := h.Hosts.Create(t.Context(), ownerID, "agent", nil, true)
	if err != nil {
		t.Fatalf("create host: %v", err)
	}
	h.RunAgent(t, *c, change)
	return host.ID
}

// RunAgent runs an in-process agent with a host's install credentials c
// and waits until the hub has it connected. The agent stops when the test
// ends.
func (h *Hub) RunAgent(t testing.TB, c hosts.Credentials, change func(*agent.Config)) {
	t.Helper()
	// Each agent gets its own "executable": an upgrade stages its download
	// beside it, and agents sharing the test binary's path would clean up
	// each other's downloads. Its local L1 listener takes a free port.
	exe := filepath.Join(t.TempDir(), "hostgate-agent")
	if err := os.WriteFile(exe, []byte("stand-in agent executable"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := agent.Config{
		HostID: c.HostID, BID: c.BID, SecretKey: c.SecretKey, InstallToken: c.InstallToken,
		AgentPrivkeySeed: c.AgentPrivkeySeed, AgentPubkey: c.AgentPubkey, WSURL: c.WSURL, APIEndpoint: c.APIEndpoint,
		StateDir: t.TempDir(), BackoffBase: 50 * time.Millisecond, BackoffCap: time.Second,
		Executable: exe, L1Listen: "127.0.0.1:0",
	}
	if change != nil {
		change(&cfg)
	}
	a, err := agent.New(cfg, Logger(t))
	if err != nil {
		t.Fatalf("agent: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		on, err := h.Dispatch.Online(t.Context(), c.HostID)
		if err == nil && on {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent of host %s not connected within 20 s (last error %v)", c.HostID, a.Status().LastError)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
