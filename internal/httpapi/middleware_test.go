package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func quietServer(proxies ...string) *Server {
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, p := range proxies {
		s.cfg.Options.TrustedProxies = append(s.cfg.Options.TrustedProxies, netip.MustParsePrefix(p))
	}
	return s
}

func TestPanicBecomesInternalError(t *testing.T) {
	s := quietServer()
	h := s.outer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("secret detail") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/x", nil))
	if rec.Code != 500 {
		t.Fatalf("status = %d, want 500", rec.Code)
	}
	var p Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Code != "internal" {
		t.Fatalf("body = %s, want {error: internal}", rec.Body)
	}
	if strings.Contains(rec.Body.String(), "secret detail") {
		t.Errorf("panic text leaked to the client: %s", rec.Body)
	}
}

func TestClientAddress(t *testing.T) {
	tests := []struct {
		name, peer, xff, proto string
		proxies                []string
		wantIP                 string
		wantTLS                bool
	}{
		{"direct", "203.0.113.9:5000", "", "", nil, "203.0.113.9", false},
		{"untrusted peer's header ignored", "203.0.113.9:5000", "198.51.100.1", "https", nil, "203.0.113.9", false},
		{"trusted proxy", "10.0.0.2:5000", "198.51.100.1", "https", []string{"10.0.0.0/8"}, "198.51.100.1", true},
		{"spoofed left entry skipped", "10.0.0.2:5000", "1.2.3.4, 198.51.100.1", "", []string{"10.0.0.0/8"}, "198.51.100.1", false},
		{"chain of proxies", "10.0.0.2:5000", "198.51.100.1, 10.0.0.7", "", []string{"10.0.0.0/8"}, "198.51.100.1", false},
		{"garbage header", "10.0.0.2:5000", "nonsense", "", []string{"10.0.0.0/8"}, "10.0.0.2", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.peer
			if tt.xff != "" {
				r.Header.Set("X-Forwarded-For", tt.xff)
			}
			if tt.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tt.proto)
			}
			ip, tls := quietServer(tt.proxies...).clientAddr(r)
			if ip != tt.wantIP || tls != tt.wantTLS {
				t.Errorf("got %s tls=%v, want %s tls=%v", ip, tls, tt.wantIP, tt.wantTLS)
			}
		})
	}
}

// agentChannel packages speak the agent protocol, whose error codes travel
// in WebSocket envelopes, not HTTP answers.
var agentChannel = map[string]bool{"agentproto": true, "agentgw": true, "agent": true, "hostgate-agent": true}

// TestEveryErrorCodeHasAStatus scans the code base for error codes and
// checks each has an entry in statusByCode, so none answers 500 by mistake.
func TestEveryErrorCodeHasAStatus(t *testing.T) {
	patterns := []*regexp.Regexp{
		regexp.MustCompile(`apperr\.New\("([a-z_]+)"`),
		regexp.MustCompile(`Code[A-Za-z]* += "([a-z_]+)"`),
		regexp.MustCompile(`Code: +"([a-z_]+)"`),
	}
	found := 0
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			if d != nil && d.IsDir() && agentChannel[filepath.Base(path)] {
				return filepath.SkipDir
			}
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, re := range patterns {
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				found++
				if _, ok := statusByCode[m[1]]; !ok {
					t.Errorf("%s: code %q has no HTTP status", path, m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 10 {
		t.Fatalf("found only %d codes; the scan is broken", found)
	}
	if statusOf("no_such_code") != 500 {
		t.Error("an unknown code must answer 500")
	}
}
