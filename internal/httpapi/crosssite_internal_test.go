package httpapi

import (
	"net/http/httptest"
	"testing"
)

// TestRefuseCrossSite is the decision table of docs/api.md, "Requests
// from other sites", case by case.
func TestRefuseCrossSite(t *testing.T) {
	s := quietServer()
	s.cfg.Options.AllowedOrigins = []string{"https://hub.example", "https://console.example"}
	const installer = "/v1/user/hosts/7d0c0c8e-93b4-4a5e-9f6e-3b1f2b3c4d5e/installer"
	for _, tt := range []struct {
		name, method, path, site, origin, auth string
		refused                                bool
	}{
		{"read", "GET", "/v1/user/me", "cross-site", "https://evil.example", "", false},
		{"head", "HEAD", installer, "cross-site", "", "", true},
		{"options", "OPTIONS", "/v1/user/me", "cross-site", "", "", false},
		{"installer cross-site", "GET", installer, "cross-site", "", "", true},
		{"installer none", "GET", installer, "none", "", "", true},
		{"installer same-origin", "GET", installer, "same-origin", "", "", false},
		{"installer with a trailing part", "GET", installer + "/x", "cross-site", "", "", false},
		{"post same-origin, any origin", "POST", "/v1/user/api-keys", "same-origin", "https://hub.internal", "", false},
		{"post same-site", "POST", "/v1/user/api-keys", "same-site", "https://a.hub.example", "", true},
		{"post cross-site, configured", "POST", "/v1/admin/hosts/x/ban", "cross-site", "https://console.example", "", false},
		{"post cross-site, no origin", "POST", "/v1/admin/hosts/x/ban", "cross-site", "", "", true},
		{"post unknown site", "POST", "/v1/user/api-keys", "sideways", "https://hub.example", "", true},
		{"old browser, public origin", "PUT", "/v1/user/me", "", "https://hub.example", "", false},
		{"old browser, request host", "PUT", "/v1/user/me", "", "http://hub.internal:8080", "", false},
		{"old browser, other host", "PUT", "/v1/user/me", "", "http://evil.example:8080", "", true},
		{"old browser, null", "DELETE", "/v1/user/api-keys/x", "", "null", "", true},
		{"old browser, empty origin", "DELETE", "/v1/user/api-keys/x", "", "<empty>", "", true},
		{"no browser", "DELETE", "/v1/user/api-keys/x", "", "", "", false},
		{"bearer", "POST", "/v1/user/api-keys", "cross-site", "https://evil.example", "Bearer x", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "http://hub.internal:8080"+tt.path, nil)
			if tt.site != "" {
				r.Header.Set("Sec-Fetch-Site", tt.site)
			}
			switch tt.origin {
			case "":
			case "<empty>":
				r.Header["Origin"] = []string{""}
			default:
				r.Header.Set("Origin", tt.origin)
			}
			if tt.auth != "" {
				r.Header.Set("Authorization", tt.auth)
			}
			if err := s.refuseCrossSite(r, userCookie); (err != nil) != tt.refused {
				t.Errorf("refused: %v (%v), want %v", err != nil, err, tt.refused)
			}
		})
	}
}
