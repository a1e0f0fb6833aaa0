package deliveries

import (
	"net/http"
	"net/netip"
)

// NewClientResolving is NewClient(false) whose resolver answers every
// name with the AAAA record aaaa, or knows no name when aaaa is invalid.
func NewClientResolving(aaaa netip.Addr) *http.Client { return newClient(false, fakeResolver(aaaa)) }
