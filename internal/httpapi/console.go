package httpapi

import (
	"net/http"
	"strings"
)

// consolePattern is the mux's fallback for GET and HEAD: the browser
// console (package console) gets every path no route claims.
const consolePattern = "GET /"

// apiRoots are the paths the API, the agents, the installers and the
// probes own, with everything below them: an unknown path there is the
// API's JSON 404, never the console.
var apiRoots = []string{"/v1", "/install", "/download", "/healthz", "/readyz", "/gateway", "/metrics"}

func claimedByAPI(p string) bool {
	for _, root := range apiRoots {
		if p == root || strings.HasPrefix(p, root+"/") {
			return true
		}
	}
	return false
}

// serveConsole serves the console, whose answers carry its own
// Content-Security-Policy and caching in place of the API's.
func (s *Server) serveConsole(w http.ResponseWriter, r *http.Request) {
	if claimedByAPI(r.URL.Path) {
		s.notFound(w, r)
		return
	}
	s.console.ServeHTTP(w, r)
}
