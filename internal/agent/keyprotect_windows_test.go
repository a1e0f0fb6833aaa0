package agent

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// The real DPAPI in machine scope (Wine implements CryptProtectData): a
// blob unseals with its entropy only.
func TestDPAPISealerRoundTrip(t *testing.T) {
	s, ok := DefaultKeySealer().(DPAPISealer)
	if !ok || s.Scheme() != KeyProtectionDPAPI {
		t.Fatalf("default sealer %T", DefaultKeySealer())
	}
	seed := bytes.Repeat([]byte{0x5a}, 32)
	blob, err := s.Seal(seed, keyEntropy("h1"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(blob, seed) {
		t.Fatal("the blob contains the plaintext")
	}
	back, err := s.Unseal(blob, keyEntropy("h1"))
	if err != nil || !bytes.Equal(back, seed) {
		t.Fatalf("unseal: %v", err)
	}
	if _, err := s.Unseal(blob, keyEntropy("h2")); err == nil {
		t.Error("a blob unsealed with another host's entropy")
	}
}

// First start with the default sealer: the setup file ends sealed with
// dpapi-machine, and a second start unseals it to the same key.
func TestKeyProtectionWithDPAPI(t *testing.T) {
	c := validConfig()
	path := setupFileFor(t, &c)
	a, logs := newWithLog(t, c)
	raw, _ := os.ReadFile(path)
	m := readSetup(t, path)
	if strings.Contains(string(raw), c.AgentPrivkeySeed) || m["key_protection"] != KeyProtectionDPAPI || m["agent_privkey_sealed"] == nil {
		t.Fatalf("setup file after the first start:\n%s\nlog:\n%s", raw, logs)
	}
	s, err := fromSetup(t, path, nil).settings()
	if err != nil {
		t.Fatalf("second start: %v", err)
	}
	if !s.key.Equal(a.s.key) {
		t.Error("the unsealed key differs")
	}
}
