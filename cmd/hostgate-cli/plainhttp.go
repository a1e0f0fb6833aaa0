package main

import (
	"net/netip"
	"net/url"
	"strings"
)

// plainHTTP reports whether the hub URL raw sends the API key unencrypted
// over the network: an http:// URL whose host is not on loopback
// (127.0.0.0/8, ::1, localhost). The agent warns in the same case.
func plainHTTP(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(u.Scheme, "http") {
		return false
	}
	return !loopback(u.Hostname())
}

// loopback reports whether host names this machine: localhost or a
// loopback address. A name under .localhost is not trusted to be: a
// resolver may send it anywhere.
func loopback(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}

// hubHost is the host:port of the hub URL raw, for the warning.
func hubHost(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return "the hub"
}
