package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// xorSealer is a KeySealer for tests: the seed XORed with a hash of the
// entropy, behind a tag that makes a wrong entropy fail to unseal.
type xorSealer struct{ fail error }

func (xorSealer) Scheme() string { return "test-xor" }

func (x xorSealer) Seal(plain, entropy []byte) ([]byte, error) {
	if x.fail != nil {
		return nil, x.fail
	}
	k := sha256.Sum256(entropy)
	out := append([]byte("xor1"), k[:4]...)
	for i, b := range plain {
		out = append(out, b^k[i%len(k)])
	}
	return out, nil
}

func (xorSealer) Unseal(sealed, entropy []byte) ([]byte, error) {
	k := sha256.Sum256(entropy)
	if len(sealed) < 8 || string(sealed[:4]) != "xor1" || !bytes.Equal(sealed[4:8], k[:4]) {
		return nil, errors.New("bad blob or entropy")
	}
	out := make([]byte, 0, len(sealed)-8)
	for i, b := range sealed[8:] {
		out = append(out, b^k[i%len(k)])
	}
	return out, nil
}

// setupFileFor writes c as a setup file (the installers' keys plus an
// extra one that must survive) in a new state directory, and points c at
// both.
func setupFileFor(t *testing.T, c *Config) string {
	t.Helper()
	dir := t.TempDir()
	c.StateDir = dir
	c.SetupFile = filepath.Join(dir, "agent.json")
	b, _ := json.MarshalIndent(map[string]any{
		"host_id": c.HostID, "bid": 7, "secret_key": "s3cr3t-s3cr3t-s3cr3t-s3cr3t-0000", "install_token": c.InstallToken,
		"agent_privkey_seed": c.AgentPrivkeySeed, "agent_pubkey": c.AgentPubkey,
		"ws_url": c.WSURL, "api_endpoint": c.APIEndpoint, "state_dir": dir, "extra": "kept",
	}, "", "  ")
	if err := os.WriteFile(c.SetupFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return c.SetupFile
}

// fromSetup is the Config the agent reads from the setup file at path
// (the keys cmd/hostgate-agent reads).
func fromSetup(t *testing.T, path string, sealer KeySealer) Config {
	t.Helper()
	m := readSetup(t, path)
	str := func(k string) string { s, _ := m[k].(string); return s }
	return Config{HostID: str("host_id"), InstallToken: str("install_token"), AgentPrivkeySeed: str("agent_privkey_seed"),
		AgentPrivkeySealed: str("agent_privkey_sealed"), KeyProtection: str("key_protection"),
		AgentPubkey: str("agent_pubkey"), WSURL: str("ws_url"), APIEndpoint: str("api_endpoint"),
		StateDir: str("state_dir"), SetupFile: path, KeySealer: sealer}
}

func newWithLog(t *testing.T, c Config) (*Agent, string) {
	t.Helper()
	var logs syncBuffer
	a, err := New(c, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return a, logs.String()
}

func TestKeyProtectionSealsTheSetupFileAtFirstStart(t *testing.T) {
	c := validConfig()
	c.KeySealer = xorSealer{}
	path := setupFileFor(t, &c)
	a, logs := newWithLog(t, c)
	want := a.s.key

	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), c.AgentPrivkeySeed) {
		t.Fatalf("the plaintext seed is still in the setup file:\n%s", raw)
	}
	m := readSetup(t, path)
	if _, ok := m["agent_privkey_seed"]; ok {
		t.Errorf("agent_privkey_seed is still a key: %v", m)
	}
	if m["key_protection"] != "test-xor" || m["agent_privkey_sealed"] == "" || m["extra"] != "kept" || m["bid"] != 7.0 {
		t.Errorf("setup file after sealing: %v", m)
	}
	if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("setup file mode %v", fi.Mode())
	}
	if !strings.Contains(logs, "private key sealed to this machine") || strings.Contains(logs, c.AgentPrivkeySeed) {
		t.Errorf("log:\n%s", logs)
	}

	// The next start unseals it to the same key, and leaves the file as it is.
	again := fromSetup(t, path, xorSealer{})
	b, err := again.settings()
	if err != nil {
		t.Fatalf("second start: %v", err)
	}
	if !b.key.Equal(want) {
		t.Errorf("the unsealed key differs")
	}
	before, _ := os.ReadFile(path)
	newWithLog(t, again)
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("a start from the sealed seed rewrote the setup file")
	}
}

func TestKeyProtectionRefusesAForeignOrUnknownBlob(t *testing.T) {
	c := validConfig()
	c.KeySealer = xorSealer{}
	path := setupFileFor(t, &c)
	newWithLog(t, c)
	sealed := fromSetup(t, path, xorSealer{})

	other := sealed
	other.HostID = "7d1c0a34-0000-4000-8000-000000000001" // the entropy is bound to the host id
	none := sealed
	none.KeySealer = nil // on Linux: no machine key at all
	scheme := sealed
	scheme.KeyProtection = "dpapi-user"
	for name, tc := range map[string]struct {
		c    Config
		want string
	}{
		"other host":   {other, "agent_privkey_sealed: cannot be unsealed on this machine"},
		"no sealer":    {none, `agent_privkey_sealed: sealed with "test-xor", which this machine does not provide`},
		"other scheme": {scheme, `sealed with "dpapi-user"`},
	} {
		err := tc.c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: %v", name, err)
		}
		if err != nil && strings.Contains(err.Error(), sealed.AgentPrivkeySealed) {
			t.Errorf("%s: the error quotes the blob", name)
		}
	}
}

// A sealer that fails leaves the plaintext seed in place with a warning
// naming code 22, and the agent starts anyway.
func TestKeyProtectionFailureDegradesToPlaintext(t *testing.T) {
	c := validConfig()
	c.KeySealer = xorSealer{fail: errors.New("no DPAPI here")}
	path := setupFileFor(t, &c)
	before, _ := os.ReadFile(path)
	_, logs := newWithLog(t, c)
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("a failed seal changed the setup file")
	}
	if !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "key protection failed (installer code 22)") ||
		!strings.Contains(logs, "no DPAPI here") {
		t.Errorf("log:\n%s", logs)
	}
}

// A seed given on the command line is not the file's: the file is left alone.
func TestKeyProtectionLeavesAFileWhoseSeedIsNotInUse(t *testing.T) {
	c := validConfig()
	c.KeySealer = xorSealer{}
	path := setupFileFor(t, &c)
	m := readSetup(t, path)
	m["agent_privkey_seed"] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	b, _ := json.Marshal(m)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	newWithLog(t, c)
	if after, _ := os.ReadFile(path); !bytes.Equal(b, after) {
		t.Errorf("the setup file was rewritten")
	}
}

func TestNoSetupFileNoProtection(t *testing.T) {
	c := validConfig()
	c.KeySealer = xorSealer{fail: errors.New("must not be called")}
	c.StateDir = t.TempDir()
	if _, logs := newWithLog(t, c); strings.Contains(logs, "key protection") {
		t.Errorf("log:\n%s", logs)
	}
}
