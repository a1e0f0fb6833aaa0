//go:build !windows

package agent

import (
	"os"
	"strings"
	"testing"
)

// On Unix the seed stays in the setup file; a mode wider than the owner's
// is tightened at start, with a warning.
func TestSetupFileReadableByOthersIsTightened(t *testing.T) {
	if DefaultKeySealer() != nil {
		t.Fatal("Unix has no machine key sealer")
	}
	c := validConfig()
	path := setupFileFor(t, &c)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, logs := newWithLog(t, c)
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	if !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "was readable by other users") {
		t.Errorf("log:\n%s", logs)
	}
	if m := readSetup(t, path); m["agent_privkey_seed"] != c.AgentPrivkeySeed {
		t.Errorf("without a sealer the seed stays in the file: %v", m)
	}
	// Already 0600: nothing said.
	if _, logs := newWithLog(t, c); strings.Contains(logs, "readable by other users") {
		t.Errorf("log:\n%s", logs)
	}
}
