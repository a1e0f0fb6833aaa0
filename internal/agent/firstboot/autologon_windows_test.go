package firstboot

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/windows/registry"

	"hostgate/internal/agentproto"
)

// The real registry writer, on a scratch key instead of Winlogon.
func TestHKLMSetStrings(t *testing.T) {
	key := fmt.Sprintf(`SOFTWARE\hostgate-firstboot-test-%d`, time.Now().UnixNano())
	t.Cleanup(func() { registry.DeleteKey(registry.LOCAL_MACHINE, key) })
	want := map[string]string{ValueAutoAdminLogon: "1", ValueDefaultUserName: "Administrator", ValueDefaultPassword: testLogon}
	if err := (hklm{}).SetStrings(key, want); err != nil {
		t.Fatal(err)
	}
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, key, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	for name, v := range want {
		if got, typ, err := k.GetStringValue(name); err != nil || got != v || typ != registry.SZ {
			t.Errorf("%s = %q (type %d), %v; want %q", name, got, typ, err, v)
		}
	}
}

func TestTemplateArgs(t *testing.T) {
	in := Install{StateDir: `C:\ProgramData\hostgate`, Hub: agentproto.PayloadHub{Issued: agentproto.Issued{HostID: testHostID, BID: 42,
		SecretKey: testSecret, InstallToken: testToken, AgentPrivkeySeed: testSeed, AgentPubkey: testPub,
		WSURL: "wss://h/v1/internal/agent/ws", APIEndpoint: "https://h", ListenPort: 24000}}}
	want := []string{"--host-id", testHostID, "--bid", "42", "--secret-key", testSecret, "--install-token", testToken,
		"--agent-privkey-seed", testSeed, "--agent-pubkey", testPub, "--ws-url", "wss://h/v1/internal/agent/ws",
		"--api-endpoint", "https://h", "--state-dir", `C:\ProgramData\hostgate`, "--listen-port", "24000"}
	if got := templateArgs(in); !slices.Equal(got, want) {
		t.Errorf("args %q\nwant %q", got, want)
	}
}
