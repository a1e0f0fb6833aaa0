package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
)

// lenientJSON wraps a JSON (huma) route so that a body that parses as JSON
// is taken as JSON whatever its Content-Type says: `curl -d '{…}'` sends
// application/x-www-form-urlencoded. A body that does not parse keeps its
// type, so an explicit non-JSON type with a non-JSON body stays 415
// unsupported_media_type. The raw routes (the payment webhook, form
// encoded by design; /gateway's base64) are registered without it.
//
// A request a browser says comes from another site's page keeps its type
// too: an HTML form can post text/plain or form-encoded bodies that parse
// as JSON across sites without a CORS preflight, and the 415 keeps such
// forms from reaching the JSON routes at all (login and register included,
// which no console cookie protects; refuseCrossSite judges the cookie
// routes as well).
func (s *Server) lenientJSON(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		if ct == "" || isJSONType(ct) || r.Body == nil || r.Body == http.NoBody {
			h(w, r)
			return
		}
		if other, _ := s.fromOtherSite(r); other {
			h(w, r)
			return
		}
		body := r.Body
		b, err := io.ReadAll(io.LimitReader(body, maxBody+1))
		if err == nil && json.Valid(b) {
			r.Header.Set("Content-Type", "application/json")
		}
		// What was read, then the rest (a read error repeats there).
		r.Body = readCloser{io.MultiReader(bytes.NewReader(b), body), body}
		h(w, r)
	}
}

type readCloser struct {
	io.Reader
	io.Closer
}

// isJSONType reports whether the media type ct is JSON
// (application/json or any +json type).
func isJSONType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}
