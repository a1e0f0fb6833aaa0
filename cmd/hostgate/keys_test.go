package main

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestKeysCommands runs `keys generate` and `keys reseal` in the real
// binary; the rotation itself is internal/hub's TestKeyRotation.
func TestKeysCommands(t *testing.T) {
	bin := binary(t)
	data := t.TempDir()
	var keys []string
	for range 2 {
		out, err := command(bin, data, "keys", "generate").Output()
		if err != nil {
			t.Fatalf("keys generate: %v", err)
		}
		line := strings.TrimSuffix(string(out), "\n")
		if k, err := base64.StdEncoding.DecodeString(line); err != nil || len(k) != 32 || strings.Contains(line, "\n") {
			t.Fatalf("keys generate printed %q, want one line of base64 of 32 bytes", out)
		}
		keys = append(keys, line)
	}
	if keys[0] == keys[1] {
		t.Errorf("keys generate printed the same key twice")
	}
	reseal := command(bin, data, "keys", "reseal")
	reseal.Env = append(reseal.Env, "HOSTGATE_SEALING_KEY="+keys[1], "HOSTGATE_SEALING_KEYS_ACCEPTED="+keys[0])
	out, err := reseal.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "host_secret: 0 resealed") || !strings.Contains(string(out), "delivery_secrets: 0 resealed") {
		t.Fatalf("keys reseal: %v\n%s", err, out)
	}
	for _, k := range keys {
		if strings.Contains(string(out), k) {
			t.Errorf("keys reseal printed a key:\n%s", out)
		}
	}
	if out, err := command(bin, data, "keys", "rotate").CombinedOutput(); err == nil {
		t.Errorf("keys rotate succeeded:\n%s", out)
	}
}
