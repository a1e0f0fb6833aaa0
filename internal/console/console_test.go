package console_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"hostgate/internal/console"
)

const indexHTML = `<!doctype html><html><head><script type="module" src="/assets/app-3f9a.js"></script></head><body><div id="root"></div></body></html>`

const adminHTML = `<!doctype html><html><head><script type="module" src="/assets/admin-5c1d.js"></script></head><body><div id="root"></div></body></html>`

// build is a fake web build: index.html and hashed assets.
func build() fstest.MapFS {
	return fstest.MapFS{
		"index.html":            {Data: []byte(indexHTML)},
		"admin.html":            {Data: []byte(adminHTML)},
		"assets/app-3f9a.js":    {Data: []byte("console.log('console')")},
		"assets/app-3f9a.css":   {Data: []byte("body{margin:0}")},
		"assets/big-77aa.js":    {Data: []byte("uncompressed")},
		"assets/big-77aa.js.gz": {Data: []byte("\x1f\x8bpretend gzip")},
		"favicon.svg":           {Data: []byte("<svg xmlns='http://www.w3.org/2000/svg'/>")},
	}
}

func get(t *testing.T, h http.Handler, method, path string, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if csp := rec.Header().Get("Content-Security-Policy"); csp != console.CSP {
		t.Errorf("%s %s: CSP %q, want the console's", method, path, csp)
	}
	return rec
}

func TestIndexAndDeepLinks(t *testing.T) {
	h := console.Handler(build())
	for _, path := range []string{"/", "/index.html", "/hosts", "/hosts/abc", "/hosts/abc/terminal", "/session-ended"} {
		rec := get(t, h, "GET", path, nil)
		if rec.Code != 200 || rec.Body.String() != indexHTML {
			t.Errorf("GET %s: %d %.80q, want index.html", path, rec.Code, rec.Body.String())
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
			t.Errorf("GET %s: Cache-Control %q, want no-store", path, cc)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", path, ct)
		}
		if rec.Header().Get("ETag") == "" {
			t.Errorf("GET %s: no ETag", path)
		}
	}
	if rec := get(t, h, "HEAD", "/hosts/abc", nil); rec.Code != 200 || rec.Body.Len() != 0 {
		t.Errorf("HEAD: %d, %d bytes", rec.Code, rec.Body.Len())
	}
}

// TestAdminPage: /admin and every path below it is the admin console's
// page (admin.html, never cached); paths that only start with "admin" and
// the user console's routes keep index.html.
func TestAdminPage(t *testing.T) {
	h := console.Handler(build())
	for _, tt := range []struct{ path, want string }{
		{"/admin", adminHTML},
		{"/admin/", adminHTML},
		{"/admin/signin", adminHTML},
		{"/admin/users/u1", adminHTML},
		{"/admin/hosts/h1/terminal", adminHTML},
		{"/admin/session-ended", adminHTML},
		{"/admin.html", adminHTML},
		{"/administrator", indexHTML},
		{"/hosts/admin", indexHTML},
		{"/signin", indexHTML},
	} {
		rec := get(t, h, "GET", tt.path, nil)
		if rec.Code != 200 || rec.Body.String() != tt.want {
			t.Errorf("GET %s: %d %.80q, want %.80q", tt.path, rec.Code, rec.Body.String(), tt.want)
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
			t.Errorf("GET %s: Cache-Control %q, want no-store", tt.path, cc)
		}
	}
	// A build without the admin page says the console is not built at
	// /admin rather than showing the customers' sign-in there.
	only := build()
	delete(only, "admin.html")
	rec := get(t, console.Handler(only), "GET", "/admin/pricing", nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "not built") {
		t.Errorf("GET /admin/pricing without admin.html: %d %.80q", rec.Code, rec.Body.String())
	}
}

func TestAssets(t *testing.T) {
	h := console.Handler(build())
	for path, ct := range map[string]string{"/assets/app-3f9a.js": "text/javascript; charset=utf-8", "/assets/app-3f9a.css": "text/css; charset=utf-8"} {
		rec := get(t, h, "GET", path, nil)
		if rec.Code != 200 || rec.Header().Get("Content-Type") != ct {
			t.Errorf("GET %s: %d %q, want 200 %q", path, rec.Code, rec.Header().Get("Content-Type"), ct)
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s: Cache-Control %q", path, cc)
		}
		etag := rec.Header().Get("ETag")
		if etag == "" {
			t.Fatalf("GET %s: no ETag", path)
		}
		if rec := get(t, h, "GET", path, map[string]string{"If-None-Match": etag}); rec.Code != 304 {
			t.Errorf("GET %s If-None-Match: %d, want 304", path, rec.Code)
		}
	}
	for _, path := range []string{"/assets/gone-1234.js", "/assets/", "/assets/sub/none.css"} {
		rec := get(t, h, "GET", path, nil)
		if rec.Code != 404 || strings.Contains(rec.Body.String(), "<html") {
			t.Errorf("GET %s: %d %.80q, want a plain 404", path, rec.Code, rec.Body.String())
		}
		if cc := rec.Header().Get("Cache-Control"); cc == "public, max-age=31536000, immutable" {
			t.Errorf("GET %s: a 404 cached for a year", path)
		}
	}
	// Another file of the build (the favicon) is itself, revalidated.
	if rec := get(t, h, "GET", "/favicon.svg", nil); rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "image/svg+xml") ||
		rec.Header().Get("Cache-Control") != "no-cache" {
		t.Errorf("favicon: %d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"))
	}
}

func TestPrecompressedAssets(t *testing.T) {
	h := console.Handler(build())
	rec := get(t, h, "GET", "/assets/big-77aa.js", map[string]string{"Accept-Encoding": "br, gzip"})
	if rec.Header().Get("Content-Encoding") != "gzip" || !strings.HasPrefix(rec.Body.String(), "\x1f\x8b") ||
		rec.Header().Get("Content-Type") != "text/javascript; charset=utf-8" || rec.Header().Get("Vary") != "Accept-Encoding" {
		t.Errorf("gzip: %v %q", rec.Header(), rec.Body.String())
	}
	rec = get(t, h, "GET", "/assets/big-77aa.js", nil)
	if rec.Header().Get("Content-Encoding") != "" || rec.Body.String() != "uncompressed" {
		t.Errorf("identity: %v %q", rec.Header(), rec.Body.String())
	}
}

func TestNotBuilt(t *testing.T) {
	for name, h := range map[string]http.Handler{"nil": console.Handler(nil), "empty": console.Handler(fstest.MapFS{".gitkeep": {}})} {
		for _, path := range []string{"/", "/hosts/abc"} {
			rec := get(t, h, "GET", path, nil)
			if rec.Code != 200 || !strings.Contains(rec.Body.String(), "The console is not built into this hub. Build it with <code>make build</code> (or <code>make run</code>).") {
				t.Errorf("%s: GET %s: %d %q", name, path, rec.Code, rec.Body.String())
			}
			if ct := rec.Header().Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("%s: Content-Type %q", name, ct)
			}
		}
		if rec := get(t, h, "GET", "/assets/app.js", nil); rec.Code != 404 {
			t.Errorf("%s: asset: %d, want 404", name, rec.Code)
		}
		if rec := get(t, h, "GET", "/.gitkeep", nil); rec.Code != 200 || !strings.Contains(rec.Body.String(), "not built") {
			t.Errorf("%s: a dot file is served: %d", name, rec.Code)
		}
	}
}

// TestCSPForbidsInlineScript: the console runs only its own script files.
func TestCSPForbidsInlineScript(t *testing.T) {
	directives := map[string]string{}
	for d := range strings.SplitSeq(console.CSP, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		directives[name] = value
	}
	if s := directives["script-src"]; s != "'self'" {
		t.Errorf("script-src %q, want 'self' only (no 'unsafe-inline', no 'unsafe-eval')", s)
	}
	for name, want := range map[string]string{"default-src": "'self'", "frame-ancestors": "'none'", "object-src": "'none'", "base-uri": "'none'"} {
		if directives[name] != want {
			t.Errorf("%s %q, want %q", name, directives[name], want)
		}
	}
}

func TestEmbeddedBuildOpens(t *testing.T) {
	// Whatever the web build put there (or only .gitkeep), the handler
	// answers /.
	if rec := get(t, console.Handler(console.Files()), "GET", "/", nil); rec.Code != 200 {
		t.Errorf("GET / of the embedded build: %d", rec.Code)
	}
}
