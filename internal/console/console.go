// Package console serves the browser consoles: the single-page applications
// the web build (web/) writes to dist/, embedded into the hub binary. Its
// hashed files under /assets/ are cached for good; every other path is a
// client-side route and gets a page, never cached: /admin and /admin/... the
// admin console (admin.html), everything else the user console
// (index.html). A hub built without the console answers those paths with a
// short page saying how to build it. See docs/console.md.
package console

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// embedded is what the web build put in dist/; on a fresh clone only
// .gitkeep, so the hub compiles without a console.
//
//go:embed all:dist
var embedded embed.FS

// Files is the console build embedded in this binary.
func Files() fs.FS {
	sub, err := fs.Sub(embedded, "dist")
	if err != nil {
		panic(err) // dist is always there: the embed pattern names it
	}
	return sub
}

// CSP is the console's Content-Security-Policy, replacing the API's
// (which loads nothing). Scripts only from the hub's own files, never
// inline; inline styles are allowed because the component library's
// CSS-in-JS writes <style> elements at run time.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"

// Cache-Control values.
const (
	cacheImmutable = "public, max-age=31536000, immutable" // /assets/: names carry a content hash
	cacheNoStore   = "no-store"                            // index.html: always the current build
	cacheRevalid   = "no-cache"                            // other files of the build (favicon): revalidate by ETag
)

// notBuilt is the page of a hub built without the console.
const notBuilt = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>hostgate</title></head>
<body>
<h1>hostgate</h1>
<p>The console is not built into this hub. Build it with <code>make build</code> (or <code>make run</code>).</p>
<p>The API is at <code>/v1/</code>; its description at <a href="/v1/openapi.json">/v1/openapi.json</a>.</p>
</body>
</html>
`

// Handler serves the console in fsys (a build's dist/ directory: index.html
// and assets/) for GET and HEAD. nil, or an fsys without index.html, is a
// hub without the console. Every file is read once, here, with its ETag:
// a build is a few megabytes and never changes under a running hub.
func Handler(fsys fs.FS) http.Handler {
	h := &handler{files: map[string]*file{}}
	if fsys == nil {
		return h
	}
	_ = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if f := read(fsys, name); f != nil {
			h.files[name] = f
		}
		return nil
	})
	return h
}

type handler struct {
	files map[string]*file // by name in the build
}

// file is one file of the build.
type file struct {
	data, gz []byte // gz: the build's pre-compressed name.gz, if any
	etag     string
	mod      time.Time
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Security-Policy", CSP)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	if strings.HasPrefix(name, "assets/") {
		// A missing asset is a 404, not index.html: a stale page asking
		// for a file of an older build must not get HTML back as script.
		if f := h.open(name); f != nil {
			h.serve(w, r, name, f, cacheImmutable)
			return
		}
		w.Header().Set("Cache-Control", cacheNoStore)
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	page := pageFor(name)
	if name != "" && name != page && name != indexPage && name != adminPage && !strings.HasPrefix(path.Base(name), ".") {
		if f := h.open(name); f != nil {
			h.serve(w, r, name, f, cacheRevalid)
			return
		}
	}
	// Every other path is a route of one of the applications (deep link).
	if f := h.open(page); f != nil {
		h.serve(w, r, page, f, cacheNoStore)
		return
	}
	w.Header().Set("Cache-Control", cacheNoStore)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.Method == http.MethodGet {
		_, _ = w.Write([]byte(notBuilt))
	}
}

// The two pages of the build.
const (
	indexPage = "index.html" // the user console
	adminPage = "admin.html" // the admin console: /admin and /admin/...
)

// pageFor is the page that answers the client-side route name (the path
// without its leading slash): the admin console for admin, admin/... and
// admin.html, the user console for everything else.
func pageFor(name string) string {
	if name == "admin" || strings.HasPrefix(name, "admin/") || name == adminPage {
		return adminPage
	}
	return indexPage
}

// serve answers f with Content-Type from name, its ETag, Range and
// conditional requests (http.ServeContent), gzip-encoded when the build
// has name.gz and the client takes it.
func (h *handler) serve(w http.ResponseWriter, r *http.Request, name string, f *file, cache string) {
	hd := w.Header()
	hd.Set("Cache-Control", cache)
	data := f.data
	if f.gz != nil {
		hd.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r) {
			data = f.gz
			hd.Set("Content-Encoding", "gzip")
			hd.Set("ETag", `"`+f.etag+`-gz"`)
		}
	}
	if hd.Get("ETag") == "" {
		hd.Set("ETag", `"`+f.etag+`"`)
	}
	http.ServeContent(w, r, name, f.mod, bytes.NewReader(data))
}

func acceptsGzip(r *http.Request) bool {
	for part := range strings.SplitSeq(r.Header.Get("Accept-Encoding"), ",") {
		coding, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(coding) == "gzip" && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// open returns the file name of the build, or nil.
func (h *handler) open(name string) *file { return h.files[name] }

func read(fsys fs.FS, name string) *file {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil
	}
	sum := sha256.Sum256(data)
	f := &file{data: data, etag: hex.EncodeToString(sum[:16]), mod: st.ModTime()}
	if gz, err := fs.ReadFile(fsys, name+".gz"); err == nil {
		f.gz = gz
	}
	return f
}
