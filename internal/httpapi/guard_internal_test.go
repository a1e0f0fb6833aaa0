package httpapi

import (
	"log/slog"
	"net/http/httptest"
	"testing"
)

// TestGuardsFollowDeclaredSecurity: a request is authenticated as its
// route declares; a route that declares nothing, and a path no route
// serves, get the entry group's guard; a method the path does not serve
// keeps the path's guard (so it is answered 405, not 401).
func TestGuardsFollowDeclaredSecurity(t *testing.T) {
	s := New(Config{Log: slog.New(slog.DiscardHandler)})
	const host = "/v1/user/hosts/7d0c0c8e-93b4-4a5e-9f6e-3b1f2b3c4d5e"
	for _, c := range []struct {
		method, path string
		want         guard
	}{
		{"GET", host + "/webhook-deliveries", guardUserOrKey},
		{"POST", host + "/webhook-deliveries/d/retry", guardUserOrKey},
		{"GET", host, guardUser},
		{"GET", host + "/terminal/ws", guardNone},
		{"POST", host + "/terminal/ws", guardNone}, // 405
		{"GET", host + "/terminal/ws/", guardUser}, // no such route
		{"GET", "/v1/admin/hosts/x/terminal/ws", guardNone},
		{"POST", "/v1/admin/auth/login", guardNone},
		{"GET", "/v1/admin/auth/login", guardNone}, // 405
		{"GET", "/v1/admin/users", guardAdmin},
		{"GET", "/v1/api/hosts", guardKey},
		{"GET", "/v1/user/nothing-here", guardUser},
		{"GET", "/v1/admin/nothing-here", guardAdmin},
		{"GET", "/v1/api/nothing-here", guardKey},
		{"POST", "/v1/public/auth/login", guardNone},
		{"GET", "/install/tok.sh", guardNone},
	} {
		r := httptest.NewRequest(c.method, c.path, nil)
		_, pattern := s.mux.Handler(r)
		if got := s.guards.of(r, pattern); got != c.want {
			t.Errorf("%s %s: guard %d, want %d", c.method, c.path, got, c.want)
		}
	}
}
