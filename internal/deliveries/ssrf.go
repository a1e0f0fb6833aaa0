package deliveries

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// RefusedError is a target address the default client will not connect
// to: private, loopback, link-local, unspecified, multicast or otherwise
// not a public unicast address (SSRF protection). Embedded is the IPv4
// address an IPv6 Addr carries (NAT64, 6to4, Teredo…) when that is the
// address that was refused.
type RefusedError struct {
	Addr     netip.Addr
	Embedded netip.Addr
	Reason   string
}

func (e *RefusedError) Error() string {
	if e.Embedded.IsValid() {
		return fmt.Sprintf("target refused: %s embeds %s, a %s address", e.Addr, e.Embedded, e.Reason)
	}
	return fmt.Sprintf("target refused: %s is a %s address", e.Addr, e.Reason)
}

// NewClient is the HTTP client deliveries are sent with: a Timeout per
// attempt, no proxy, and no redirects (a 3xx answer is returned as is and
// counts as a failure, so a redirect can never lead to an address the
// dialer would refuse, nor the signed body elsewhere). Unless allowPrivate,
// the dialer refuses non-public addresses when it connects, after DNS
// resolution, so a name that resolves to a public address when checked and
// a private one when used (DNS rebinding) cannot get through.
func NewClient(allowPrivate bool) *http.Client { return newClient(allowPrivate, nil) }

// newClient is NewClient resolving names with resolver (nil: the default),
// so that a test can make a name resolve to any address.
func newClient(allowPrivate bool, resolver *net.Resolver) *http.Client {
	dialer := &net.Dialer{Timeout: Timeout, KeepAlive: 30 * time.Second, Resolver: resolver}
	if !allowPrivate {
		dialer.Control = refusePrivate
	}
	return &http.Client{
		Timeout: Timeout,
		Transport: &http.Transport{
			Proxy:                 nil, // a proxy would dial for us, unchecked
			DialContext:           dialer.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          100,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   Timeout,
			ResponseHeaderTimeout: Timeout,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// refusePrivate is a net.Dialer Control function: address is the resolved
// ip:port about to be connected.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &RefusedError{Reason: "unparsable"}
	}
	return CheckAddr(ap.Addr())
}

// CheckAddr returns a *RefusedError when a is not a public unicast
// address, or nil. An IPv6 address that embeds an IPv4 address (see
// embeddedIPv4) is judged by that IPv4 address as well: refused when it
// is not public, allowed when it is (64:ff9b::808:808 is 8.8.8.8 through
// a NAT64 gateway, as public as 8.8.8.8 itself). Both the write-time
// check of a report URL and the dialer use it, so they agree.
func CheckAddr(a netip.Addr) error {
	a = a.Unmap().WithZone("")
	if reason := nonPublic(a); reason != "" {
		return &RefusedError{Addr: a, Reason: reason}
	}
	for _, v4 := range embeddedIPv4(a) {
		if reason := nonPublic(v4); reason != "" {
			return &RefusedError{Addr: a, Embedded: v4, Reason: reason}
		}
	}
	return nil
}

// sharedSpace is 100.64.0.0/10 (RFC 6598, carrier-grade NAT), which
// netip does not count as private.
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// reserved are special-purpose ranges (RFC 6890 and its updates) that
// netip has no predicate for and that no public receiver uses: IETF
// protocol assignments, documentation, benchmarking, class E, and IPv6
// documentation.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments (RFC 6890)
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1 (RFC 5737)
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking (RFC 2544)
	netip.MustParsePrefix("240.0.0.0/4"),     // class E, reserved (RFC 1112)
	netip.MustParsePrefix("2001:db8::/32"),   // IPv6 documentation (RFC 3849)
}

func isReserved(a netip.Addr) bool {
	for _, p := range reserved {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Prefixes of IPv6 addresses that carry an IPv4 address (embeddedIPv4),
// and the local-use NAT64 prefix, refused whole (nonPublic).
var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")    // RFC 6052: IPv4 in bits 96..127
	nat64LocalUse  = netip.MustParsePrefix("64:ff9b:1::/48")  // RFC 8215
	ipv4Compatible = netip.MustParsePrefix("::/96")           // RFC 4291 (deprecated): ::a.b.c.d
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96") // RFC 2765 (SIIT): ::ffff:0:a.b.c.d
	sixToFour      = netip.MustParsePrefix("2002::/16")       // RFC 3056: IPv4 in bits 16..47
	teredo         = netip.MustParsePrefix("2001::/32")       // RFC 4380: server in bits 32..63, client ^0xffffffff in 96..127
	siteLocal      = netip.MustParsePrefix("fec0::/10")       // RFC 3879 (deprecated), still routed on some networks
)

// nonPublic names why a is not a public unicast address, or "". It looks
// at a alone; CheckAddr also judges the IPv4 address a may embed.
func nonPublic(a netip.Addr) string {
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate(), sharedSpace.Contains(a), siteLocal.Contains(a):
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsUnspecified(), a.Is4() && a.As4()[0] == 0:
		return "unspecified"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast(), a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "multicast or broadcast"
	case isReserved(a):
		return "reserved"
	case nat64LocalUse.Contains(a):
		// Local-use NAT64 prefixes are operator-chosen and may place the
		// IPv4 address at any RFC 6052 offset; none is globally routed.
		return "local-use NAT64"
	}
	return ""
}

// embeddedIPv4 returns the IPv4 addresses an IPv6 address a carries and
// that a packet to a may end up at: NAT64 (64:ff9b::/96), IPv4-compatible
// (::/96), IPv4-translated (::ffff:0:0:0/96), 6to4 (2002::/16), Teredo
// (2001::/32: the server and the client) and ISATAP interface identifiers
// (::0:5efe:a.b.c.d and ::200:5efe:a.b.c.d under any prefix). IPv4-mapped
// addresses are unmapped before this is called.
func embeddedIPv4(a netip.Addr) []netip.Addr {
	if !a.Is6() {
		return nil
	}
	b := a.As16()
	v4 := func(i int) netip.Addr { return netip.AddrFrom4([4]byte(b[i : i+4])) }
	var out []netip.Addr
	switch {
	case nat64WellKnown.Contains(a), ipv4Compatible.Contains(a), ipv4Translated.Contains(a):
		out = append(out, v4(12))
	case sixToFour.Contains(a):
		out = append(out, v4(2))
	case teredo.Contains(a):
		client := [4]byte{^b[12], ^b[13], ^b[14], ^b[15]}
		out = append(out, v4(4), netip.AddrFrom4(client))
	}
	if (b[8] == 0 || b[8] == 2) && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe {
		out = append(out, v4(12)) // ISATAP (RFC 5214)
	}
	return out
}

// IsRefused reports whether err is a refused target.
func IsRefused(err error) bool {
	var r *RefusedError
	return errors.As(err, &r)
}
