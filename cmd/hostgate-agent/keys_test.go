package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The setup file given with --config is where key protection works
// (agent.Config.SetupFile), and its sealed seed reaches the agent.
func TestConfigFileIsTheSetupFileForKeyProtection(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.json")
	if err := os.WriteFile(path, []byte(`{"host_id":"h","agent_privkey_sealed":"c2VhbGVk","key_protection":"dpapi-machine"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	cfg, _, err := parseRun([]string{"--config", "agent.json"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SetupFile != path || cfg.AgentPrivkeySealed != "c2VhbGVk" || cfg.KeyProtection != "dpapi-machine" || cfg.AgentPrivkeySeed != "" {
		t.Errorf("SetupFile %q sealed %q protection %q", cfg.SetupFile, cfg.AgentPrivkeySealed, cfg.KeyProtection)
	}
	if cfg, _, _ := parseRun([]string{"--host-id", "h"}, io.Discard); cfg.SetupFile != "" {
		t.Errorf("no --config, SetupFile %q", cfg.SetupFile)
	}
}
