package deliveries

import (
	"net/netip"
	"testing"
)

func TestNonPublic(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "10.1.2.3": "private", "172.16.0.1": "private",
		"192.168.1.1": "private", "100.64.0.1": "private", "fd00::1": "private", "169.254.169.254": "link-local",
		"fe80::1": "link-local", "0.0.0.0": "unspecified", "0.1.2.3": "unspecified", "::": "unspecified",
		"224.0.0.1": "multicast or broadcast", "255.255.255.255": "multicast or broadcast", "ff02::1": "multicast or broadcast",
		"93.184.216.34": "", "2606:4700::1111": "",
	} {
		if got := nonPublic(netip.MustParseAddr(addr).Unmap()); got != want {
			t.Errorf("nonPublic(%s) = %q, want %q", addr, got, want)
		}
	}
	if err := refusePrivate("tcp6", "[::ffff:127.0.0.1]:80", nil); err == nil || err.Error() != "target refused: 127.0.0.1 is a loopback address" {
		t.Errorf("refusePrivate of a mapped loopback address: %v", err)
	}
}
