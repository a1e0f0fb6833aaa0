package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// TestWindowsAgentKeyProtectionUnderWine: the Windows agent, started
// under Wine with a setup file holding the plaintext seed (as the
// installers write it), seals the seed with DPAPI at its first start and
// removes the plaintext from the file; started again with the sealed file
// and no saved agent token (so it must sign the key refresh with the
// unsealed key), it connects. Run with HOSTGATE_WINE_EXEC set, as
// TestWindowsAgentUnderWine:
//
//	eval "$(.ci/wine/setup)"; HOSTGATE_WINE_EXEC=$PWD/.ci/wine/exec \
//	    go test -count=1 -run '^TestWindowsAgentKeyProtectionUnderWine$' ./e2e/
func TestWindowsAgentKeyProtectionUnderWine(t *testing.T) {
	wine, exe := windowsAgentUnderWine(t)
	e := NewEnv(t, false)
	h := e.StartHub()
	cust := NewCustomer(t, h)
	creds := cust.CreateHost(h, "wine-keys")
	stateDir := t.TempDir()
	setup := filepath.Join(stateDir, "agent.json")
	b, _ := json.Marshal(map[string]any{
		"host_id": creds.HostID, "bid": creds.BID, "secret_key": creds.SecretKey, "install_token": creds.InstallToken,
		"agent_privkey_seed": creds.AgentPrivkeySeed, "agent_pubkey": creds.AgentPubkey,
		"ws_url": creds.WSURL, "api_endpoint": creds.APIEndpoint, "state_dir": winPath(stateDir), "l1_listen": "off",
	})
	if err := os.WriteFile(setup, b, 0o600); err != nil {
		t.Fatal(err)
	}

	first := start(t, wine, nil, exe, "run", "--config", winPath(setup))
	eventually.True(t, 60*time.Second, "Windows agent connected", func() bool { return cust.Connected(h, creds.HostID) })
	raw, err := os.ReadFile(setup)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("setup file after the first start: %v", err)
	}
	if strings.Contains(string(raw), creds.AgentPrivkeySeed) || m["key_protection"] != "dpapi-machine" ||
		m["agent_privkey_sealed"] == nil || m["secret_key"] != creds.SecretKey {
		t.Fatalf("the setup file is not sealed:\n%s", raw)
	}
	first.Stop()
	eventually.True(t, 60*time.Second, "first agent gone", func() bool { return !cust.Connected(h, creds.HostID) })

	// No saved token and the install token spent: only the key refresh,
	// signed with the unsealed key, brings it online.
	if err := os.Remove(filepath.Join(stateDir, "agent-token.json")); err != nil {
		t.Fatal(err)
	}
	start(t, wine, nil, exe, "run", "--config", winPath(setup))
	eventually.True(t, 60*time.Second, "Windows agent connected from the sealed key", func() bool { return cust.Connected(h, creds.HostID) })
}
