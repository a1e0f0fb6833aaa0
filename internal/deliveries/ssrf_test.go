package deliveries

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
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

// TestRefusesEmbeddedIPv4 checks that an IPv6 address carrying an IPv4
// address is judged by that IPv4 address, as the dialer sees it.
func TestRefusesEmbeddedIPv4(t *testing.T) {
	tests := []struct {
		give string
		want string // "" when allowed
	}{
		// Special-purpose IPv4 and IPv6 ranges.
		{"192.0.0.8", "target refused: 192.0.0.8 is a reserved address"},
		{"192.0.2.1", "target refused: 192.0.2.1 is a reserved address"},
		{"198.51.100.7", "target refused: 198.51.100.7 is a reserved address"},
		{"203.0.113.9", "target refused: 203.0.113.9 is a reserved address"},
		{"198.18.0.1", "target refused: 198.18.0.1 is a reserved address"},
		{"198.19.255.254", "target refused: 198.19.255.254 is a reserved address"},
		{"240.0.0.1", "target refused: 240.0.0.1 is a reserved address"},
		{"2001:db8::1", "target refused: 2001:db8::1 is a reserved address"},
		{"64:ff9b::c612:1", "target refused: 64:ff9b::c612:1 embeds 198.18.0.1, a reserved address"},
		{"1.1.1.1", ""},
		{"198.20.0.1", ""},
		{"2001:4860:4860::8888", ""},
		// NAT64, well-known prefix (RFC 6052).
		{"64:ff9b::7f00:1", "target refused: 64:ff9b::7f00:1 embeds 127.0.0.1, a loopback address"},
		{"64:ff9b::a00:1", "target refused: 64:ff9b::a00:1 embeds 10.0.0.1, a private address"},
		{"64:ff9b::a9fe:a9fe", "target refused: 64:ff9b::a9fe:a9fe embeds 169.254.169.254, a link-local address"},
		{"64:ff9b::6440:1", "target refused: 64:ff9b::6440:1 embeds 100.64.0.1, a private address"},
		{"64:ff9b::808:808", ""},
		// Local-use NAT64 (RFC 8215): refused whole, whatever it embeds.
		{"64:ff9b:1::7f00:1", "target refused: 64:ff9b:1::7f00:1 is a local-use NAT64 address"},
		{"64:ff9b:1:808:8:800::", "target refused: 64:ff9b:1:808:8:800:: is a local-use NAT64 address"},
		// IPv4-compatible (::/96).
		{"::127.0.0.1", "target refused: ::7f00:1 embeds 127.0.0.1, a loopback address"},
		{"::10.0.0.1", "target refused: ::a00:1 embeds 10.0.0.1, a private address"},
		{"::192.168.0.1", "target refused: ::c0a8:1 embeds 192.168.0.1, a private address"},
		{"::8.8.8.8", ""},
		// IPv4-mapped (::ffff:0:0/96): unmapped first.
		{"::ffff:127.0.0.1", "target refused: 127.0.0.1 is a loopback address"},
		{"::ffff:10.0.0.1", "target refused: 10.0.0.1 is a private address"},
		{"::ffff:8.8.8.8", ""},
		// IPv4-translated (::ffff:0:0:0/96).
		{"::ffff:0:127.0.0.1", "target refused: ::ffff:0:7f00:1 embeds 127.0.0.1, a loopback address"},
		{"::ffff:0:172.16.0.1", "target refused: ::ffff:0:ac10:1 embeds 172.16.0.1, a private address"},
		{"::ffff:0:8.8.8.8", ""},
		// 6to4 (2002::/16): IPv4 in bits 16..47.
		{"2002:7f00:1::", "target refused: 2002:7f00:1:: embeds 127.0.0.1, a loopback address"},
		{"2002:a00:1::1", "target refused: 2002:a00:1::1 embeds 10.0.0.1, a private address"},
		{"2002:a9fe:a9fe::1", "target refused: 2002:a9fe:a9fe::1 embeds 169.254.169.254, a link-local address"},
		{"2002:808:808::1", ""},
		// Teredo (2001::/32): server in bits 32..63, client XOR 0xffffffff in the last 32.
		{"2001:0:808:808:8000:ffff:f5ff:fffe", "target refused: 2001:0:808:808:8000:ffff:f5ff:fffe embeds 10.0.0.1, a private address"},
		{"2001:0:808:808:8000:ffff:80ff:fffe", "target refused: 2001:0:808:808:8000:ffff:80ff:fffe embeds 127.0.0.1, a loopback address"},
		{"2001:0:a00:1:8000:ffff:f7f7:f7f7", "target refused: 2001:0:a00:1:8000:ffff:f7f7:f7f7 embeds 10.0.0.1, a private address"},
		{"2001:0:808:808:8000:ffff:f7f7:f7f7", ""},
		// ISATAP interface identifiers (RFC 5214), under any prefix.
		{"2606:4700::5efe:7f00:1", "target refused: 2606:4700::5efe:7f00:1 embeds 127.0.0.1, a loopback address"},
		{"2606:4700::200:5efe:a00:1", "target refused: 2606:4700::200:5efe:a00:1 embeds 10.0.0.1, a private address"},
		{"2606:4700::5efe:808:808", ""},
		// Deprecated site-local (fec0::/10).
		{"fec0::1", "target refused: fec0::1 is a private address"},
		// Public addresses.
		{"1.1.1.1", ""},
		{"8.8.8.8", ""},
		{"2001:4860:4860::8888", ""},
		{"2606:4700::1111", ""},
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.give)
		err := refusePrivate("tcp", netip.AddrPortFrom(a, 443).String(), nil)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("refusePrivate(%s) = %q, want %q", tt.give, got, tt.want)
		}
	}
}

// TestClientRefusesEmbeddedIPv4 dials through the client the worker uses:
// the check runs on the address about to be connected, so nothing is sent.
func TestClientRefusesEmbeddedIPv4(t *testing.T) {
	c := NewClient(false)
	for _, target := range []string{"http://[64:ff9b::7f00:1]:9/", "http://[::127.0.0.1]:9/", "http://[2002:a00:1::1]:9/",
		"http://[::ffff:0:127.0.0.1]:9/", "http://[2001:0:808:808:8000:ffff:f5ff:fffe]:9/"} {
		resp, err := c.Get(target)
		if err == nil {
			_ = resp.Body.Close()
		}
		var refused *RefusedError
		if !errors.As(err, &refused) {
			t.Errorf("GET %s: %v, want a refused target", target, err)
		}
	}
}

// FuzzCheckAddr: the judge never panics, agrees with itself whatever form
// the address is written in, and never allows an address whose embedded
// IPv4 address it would refuse on its own.
func FuzzCheckAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "::1", "64:ff9b::7f00:1", "64:ff9b:1::a00:1", "::10.0.0.1",
		"::ffff:127.0.0.1", "::ffff:0:10.0.0.1", "2002:a00:1::1", "2001:0:808:808:8000:ffff:f5ff:fffe",
		"fe80::1%eth0", "2606:4700::5efe:7f00:1", "8.8.8.8", "2001:4860:4860::8888"} {
		f.Add(netip.MustParseAddr(s).AsSlice())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		err := CheckAddr(a)
		if err != nil && !IsRefused(err) {
			t.Fatalf("CheckAddr(%s) = %v, not a RefusedError", a, err)
		}
		if again := CheckAddr(netip.MustParseAddr(a.String())); (again == nil) != (err == nil) {
			t.Fatalf("CheckAddr(%s) = %v, but of its text form %v", a, err, again)
		}
		if a.Is4In6() && (CheckAddr(a.Unmap()) == nil) != (err == nil) {
			t.Fatalf("CheckAddr(%s) = %v, but of %s %v", a, err, a.Unmap(), CheckAddr(a.Unmap()))
		}
		if err == nil {
			for _, v4 := range embeddedIPv4(a.Unmap()) {
				if nonPublic(v4) != "" {
					t.Fatalf("CheckAddr(%s) allowed it, but it embeds %s", a, v4)
				}
			}
		}
	})
}

// TestClientRefusesNamesResolvingToEmbeddedIPv4: a name whose AAAA record
// is an IPv6 address embedding a private IPv4 address (what DNS rebinding
// or a hostile zone would serve) is refused when the client connects.
func TestClientRefusesNamesResolvingToEmbeddedIPv4(t *testing.T) {
	for _, aaaa := range []string{"64:ff9b::7f00:1", "::10.0.0.1", "2002:a00:1::1", "::ffff:0:127.0.0.1",
		"2001:0:808:808:8000:ffff:f5ff:fffe"} {
		c := newClient(false, fakeResolver(netip.MustParseAddr(aaaa)))
		resp, err := c.Get("http://hook.example.test.:9/")
		if err == nil {
			_ = resp.Body.Close()
		}
		var refused *RefusedError
		if !errors.As(err, &refused) || refused.Addr != netip.MustParseAddr(aaaa) {
			t.Errorf("GET a name resolving to %s: %v, want that address refused", aaaa, err)
		}
	}
}

// fakeResolver answers every AAAA question with addr and every other
// question with no records, over an in-memory connection; with an invalid
// addr it knows no name at all.
func fakeResolver(addr netip.Addr) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			for { // TCP framing: a net.Pipe is not a PacketConn
				var n [2]byte
				if _, err := io.ReadFull(server, n[:]); err != nil {
					return
				}
				q := make([]byte, binary.BigEndian.Uint16(n[:]))
				if _, err := io.ReadFull(server, q); err != nil {
					return
				}
				end := 12
				for q[end] != 0 {
					end += int(q[end]) + 1
				}
				end += 5 // root label, type, class
				qtype := binary.BigEndian.Uint16(q[end-4:])
				msg := append([]byte{q[0], q[1], 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0}, q[12:end]...)
				if qtype == 28 && addr.IsValid() { // AAAA
					msg[7] = 1
					msg = append(msg, 0xc0, 12, 0, 28, 0, 1, 0, 0, 0, 60, 0, 16)
					msg = append(msg, addr.AsSlice()...)
				}
				if _, err := server.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(msg))), msg...)); err != nil {
					return
				}
			}
		}()
		return client, nil
	}}
}
