package hosts

import (
	"strings"
	"testing"
)

func TestHandshakeDigestSeesEveryRecordedChange(t *testing.T) {
	base := HandshakeDigest("203.0.113.7", "windows 10.0.19045", "1.4.0")
	if HandshakeDigest("203.0.113.7", "windows 10.0.19045", "1.4.0") != base {
		t.Fatal("the same handshake digests differently")
	}
	for name, d := range map[string]uint64{
		"address": HandshakeDigest("203.0.113.8", "windows 10.0.19045", "1.4.0"),
		"os":      HandshakeDigest("203.0.113.7", "windows 10.0.22631", "1.4.0"),
		"version": HandshakeDigest("203.0.113.7", "windows 10.0.19045", "1.4.1"),
		"shifted": HandshakeDigest("203.0.113.7windows", " 10.0.19045", "1.4.0"),
	} {
		if d == base {
			t.Errorf("a changed %s digests the same", name)
		}
	}
	// What is stored is clipped, so a long OS string matches its stored form.
	long := strings.Repeat("x", 300)
	if HandshakeDigest("ip", long, "v") != HandshakeDigest("ip", long[:128], "v") {
		t.Error("an OS string beyond what is stored must digest as its stored form")
	}
}
