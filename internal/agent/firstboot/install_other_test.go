//go:build !windows

package firstboot

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"hostgate/internal/agent/install"
	"hostgate/internal/agentproto"
)

func TestLinuxInstallRunsTheLinuxInstallThenWritesTheMarker(t *testing.T) {
	h := agentproto.PayloadHub{Issued: agentproto.Issued{HostID: testHostID, BID: 42, SecretKey: testSecret, InstallToken: testToken,
		AgentPrivkeySeed: testSeed, AgentPubkey: testPub, APIEndpoint: "https://hub.example.com",
		WSURL: "wss://hub.example.com/v1/internal/agent/ws", ListenPort: 24000}}
	for _, code := range []int{install.ExitOK, install.ExitService} {
		state := t.TempDir()
		var gotArgs []string
		var gotSetup map[string]any
		fake := func(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
			gotArgs = args
			b, _ := io.ReadAll(stdin)
			if err := json.Unmarshal(b, &gotSetup); err != nil {
				t.Errorf("setup on stdin: %v", err)
			}
			return code
		}
		var out, errb bytes.Buffer
		got := linuxInstall(Install{Hub: h, StateDir: state, Prefix: "/opt/hg", Service: "detached"}, fake, &out, &errb)
		if got != code {
			t.Fatalf("exit %d, want the install's %d", got, code)
		}
		want := []string{"--config", "-", "--state-dir", state, "--prefix", "/opt/hg", "--service", "detached"}
		if !slices.Equal(gotArgs, want) {
			t.Errorf("args %q, want %q", gotArgs, want)
		}
		for k, v := range map[string]any{"host_id": testHostID, "bid": 42.0, "secret_key": testSecret, "install_token": testToken,
			"agent_privkey_seed": testSeed, "agent_pubkey": testPub, "ws_url": h.WSURL, "api_endpoint": h.APIEndpoint, "listen_port": 24000.0} {
			if gotSetup[k] != v {
				t.Errorf("setup %s = %v, want %v", k, gotSetup[k], v)
			}
		}
		b, err := os.ReadFile(filepath.Join(state, install.MarkerFileName))
		if code == install.ExitOK {
			if err != nil || !strings.Contains(string(b), testHostID) || strings.Contains(string(b), testSecret) {
				t.Errorf("marker after success: %q, %v", b, err)
			}
		} else if err == nil {
			t.Error("marker written after a failed install")
		}
	}
}
