package agentproto

import (
	"strings"
	"testing"
)

func TestSettingsFingerprint(t *testing.T) {
	base := SettingsUpdate{BID: 42, SecretKey: strings.Repeat("ab", 16), URL: "https://hooks.example.com/l1"}
	fp := base.Fingerprint()
	if len(fp) != 32 || fp != base.Fingerprint() {
		t.Fatalf("fingerprint %q: want 32 stable hex characters", fp)
	}
	if strings.Contains(fp, base.SecretKey) {
		t.Fatal("the fingerprint shows the secret")
	}
	for name, other := range map[string]SettingsUpdate{
		"bid":    {BID: 43, SecretKey: base.SecretKey, URL: base.URL},
		"secret": {BID: 42, SecretKey: strings.Repeat("cd", 16), URL: base.URL},
		"url":    {BID: 42, SecretKey: base.SecretKey, URL: base.URL + "x"},
		// The separator keeps bid and URL apart: 4 + "2…" is not 42 + "…".
		"shifted": {BID: 4, SecretKey: base.SecretKey, URL: "2\n" + base.URL},
	} {
		if other.Fingerprint() == fp {
			t.Errorf("a different %s gives the same fingerprint", name)
		}
	}
}
