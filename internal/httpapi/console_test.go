package httpapi_test

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"hostgate/internal/console"
	"hostgate/internal/httpapi"
	"hostgate/internal/hubtest"
)

// consoleServer is a hub transport with a fake console build and no
// services: enough for paths that reach none.
func consoleServer(fsys fstest.MapFS) *httpapi.Server {
	cfg := httpapi.Config{Log: slog.New(slog.DiscardHandler)}
	if fsys != nil {
		cfg.Options.Console = fsys
	}
	return httpapi.New(cfg)
}

func serve(s *httpapi.Server, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

// TestConsoleIsTheFallback: GET and HEAD of every path the API does not
// claim get the console, with the console's CSP and the other security
// headers; unknown API paths keep their JSON 404.
func TestConsoleIsTheFallback(t *testing.T) {
	s := consoleServer(fstest.MapFS{
		"index.html":         {Data: []byte("<!doctype html><title>console</title>")},
		"assets/app-1a2b.js": {Data: []byte("export {}")},
	})
	for _, tt := range []struct{ path, body, cache string }{
		{"/", "<!doctype html><title>console</title>", "no-store"},
		{"/hosts/abc", "<!doctype html><title>console</title>", "no-store"},
		{"/signin", "<!doctype html><title>console</title>", "no-store"},
		{"/assets/app-1a2b.js", "export {}", "public, max-age=31536000, immutable"},
	} {
		rec := serve(s, "GET", tt.path)
		if rec.Code != 200 || rec.Body.String() != tt.body || rec.Header().Get("Cache-Control") != tt.cache {
			t.Errorf("GET %s: %d %q Cache-Control %q; want %q, %q", tt.path, rec.Code, rec.Body.String(),
				rec.Header().Get("Cache-Control"), tt.body, tt.cache)
		}
		if csp := rec.Header().Get("Content-Security-Policy"); csp != console.CSP {
			t.Errorf("GET %s: CSP %q, want the console's", tt.path, csp)
		}
		for name, want := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"} {
			if got := rec.Header().Get(name); got != want {
				t.Errorf("GET %s: %s %q, want %q", tt.path, name, got, want)
			}
		}
		if rec.Header().Get("X-Request-Id") == "" {
			t.Errorf("GET %s: no request id", tt.path)
		}
	}
	if rec := serve(s, "GET", "/assets/missing-9999.js"); rec.Code != 404 || strings.Contains(rec.Body.String(), "<title>") {
		t.Errorf("missing asset: %d %q, want a plain 404", rec.Code, rec.Body.String())
	}
	for _, tt := range []struct{ method, path string }{
		{"GET", "/v1/nope"}, {"GET", "/v1"}, {"GET", "/v1/public/nope"}, {"HEAD", "/v1/nope"},
		{"GET", "/install/"}, {"GET", "/download/"}, {"GET", "/healthz/x"}, {"GET", "/metrics"},
		{"POST", "/hosts/abc"}, {"PUT", "/"},
	} {
		rec := serve(s, tt.method, tt.path)
		if rec.Code != 404 || rec.Header().Get("Content-Security-Policy") != "default-src 'none'; frame-ancestors 'none'" {
			t.Errorf("%s %s: %d CSP %q, want the API's 404", tt.method, tt.path, rec.Code, rec.Header().Get("Content-Security-Policy"))
		}
		if tt.method == "HEAD" {
			continue
		}
		var e struct{ Error, Message string }
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error != "not_found" {
			t.Errorf("%s %s: %q, want {error: not_found}", tt.method, tt.path, rec.Body.String())
		}
	}
	// The API's own routes are untouched.
	if rec := serve(s, "GET", "/v1/openapi.json"); rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Errorf("openapi: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
}

// TestAdminConsoleIsServed: /admin and /admin/... get the admin console's
// page; the admin API under /v1/admin keeps its JSON answers.
func TestAdminConsoleIsServed(t *testing.T) {
	s := consoleServer(fstest.MapFS{
		"index.html": {Data: []byte("<!doctype html><title>console</title>")},
		"admin.html": {Data: []byte("<!doctype html><title>admin</title>")},
	})
	for path, want := range map[string]string{
		"/admin":                  "<!doctype html><title>admin</title>",
		"/admin/signin":           "<!doctype html><title>admin</title>",
		"/admin/hosts/h1":         "<!doctype html><title>admin</title>",
		"/admin/audit?action=x":   "<!doctype html><title>admin</title>",
		"/hosts/h1":               "<!doctype html><title>console</title>",
		"/administrators-welcome": "<!doctype html><title>console</title>",
	} {
		rec := serve(s, "GET", path)
		if rec.Code != 200 || rec.Body.String() != want || rec.Header().Get("Content-Security-Policy") != console.CSP {
			t.Errorf("GET %s: %d %q CSP %q, want %q", path, rec.Code, rec.Body.String(), rec.Header().Get("Content-Security-Policy"), want)
		}
	}
	for _, path := range []string{"/v1/admin/nope", "/v1/admin"} {
		rec := serve(s, "GET", path)
		var e struct{ Error string }
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || (rec.Code != 404 && rec.Code != 401) {
			t.Errorf("GET %s: %d %q, want the API's JSON answer", path, rec.Code, rec.Body.String())
		}
	}
	if rec := serve(s, "POST", "/admin/signin"); rec.Code != 404 {
		t.Errorf("POST /admin/signin: %d, want 404", rec.Code)
	}
}

// TestConsoleNotBuilt: a hub built without the console says how to build
// it, as a page, at / and at deep links; never a JSON 404.
func TestConsoleNotBuilt(t *testing.T) {
	s := consoleServer(nil)
	for _, path := range []string{"/", "/hosts/abc"} {
		rec := serve(s, "GET", path)
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") ||
			!strings.Contains(rec.Body.String(), "The console is not built into this hub. Build it with <code>make build</code> (or <code>make run</code>).") {
			t.Errorf("GET %s: %d %q %q", path, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
		}
		if csp := rec.Header().Get("Content-Security-Policy"); csp != console.CSP {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
	}
}

// TestHubServesConsole: a real hub wires the embedded build (or the
// not-built page) in as the fallback.
func TestHubServesConsole(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	r := h.Client(t).Do("GET", "/hosts/abc", nil).Want(t, 200, "")
	if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" || r.Header.Get("Content-Security-Policy") != console.CSP {
		t.Errorf("GET /hosts/abc: Content-Type %q, CSP %q", ct, r.Header.Get("Content-Security-Policy"))
	}
	h.Client(t).Do("GET", "/v1/nope", nil).Want(t, 404, "not_found")
	r = h.Client(t).Do("GET", "/admin/pricing", nil).Want(t, 200, "")
	if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" || r.Header.Get("Content-Security-Policy") != console.CSP {
		t.Errorf("GET /admin/pricing: Content-Type %q, CSP %q", ct, r.Header.Get("Content-Security-Policy"))
	}
}
