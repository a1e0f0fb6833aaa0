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
// not a public unicast address (SSRF protection).
type RefusedError struct {
	Addr   netip.Addr
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("target refused: %s is a %s address", e.Addr, e.Reason)
}

// NewClient is the HTTP client deliveries are sent with: a Timeout per
// attempt, no proxy, and no redirects (a 3xx answer is returned as is and
// counts as a failure, so a redirect can never lead to an address the
// dialer would refuse, nor the signed body elsewhere). Unless allowPrivate,
// the dialer refuses non-public addresses when it connects, after DNS
// resolution, so a name that resolves to a public address when checked and
// a private one when used (DNS rebinding) cannot get through.
func NewClient(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: Timeout, KeepAlive: 30 * time.Second}
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
	if reason := nonPublic(ap.Addr().Unmap()); reason != "" {
		return &RefusedError{Addr: ap.Addr().Unmap(), Reason: reason}
	}
	return nil
}

// sharedSpace is 100.64.0.0/10 (RFC 6598, carrier-grade NAT), which
// netip does not count as private.
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// nonPublic names why a is not a public unicast address, or "".
func nonPublic(a netip.Addr) string {
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate(), sharedSpace.Contains(a):
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsUnspecified(), a.Is4() && a.As4()[0] == 0:
		return "unspecified"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast(), a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "multicast or broadcast"
	}
	return ""
}

// IsRefused reports whether err is a refused target.
func IsRefused(err error) bool {
	var r *RefusedError
	return errors.As(err, &r)
}
