package httpapi

import (
	"net/http"
	"strings"
	"sync"
)

// guard is how a request is authenticated, decided once from the
// security its route declares.
type guard uint8

const (
	// guardGroup: the route declares nothing; its entry group's default
	// applies (groupGuard). Unknown routes are guarded so too, so a
	// protected prefix never reaches a handler unauthenticated.
	guardGroup guard = iota
	// guardNone: the route declares no scheme (an empty, non-nil
	// security): public, or it checks its own credential (a terminal
	// ticket).
	guardNone
	guardUser
	guardAdmin
	guardKey
	// guardUserOrKey: a user token or, when the credential is an API key
	// (ak_…), the key.
	guardUserOrKey
)

// noSecurity declares that a route takes no credential the transport
// checks. declare drops it from the operation: the OpenAPI document shows
// no security for such a route, as for any public one.
var noSecurity = []map[string][]string{}

// guardFor reads a route's declared security.
func guardFor(sec []map[string][]string) guard {
	if sec == nil {
		return guardGroup
	}
	var user, admin, key bool
	for _, alt := range sec {
		for scheme := range alt {
			switch scheme {
			case "userToken", "userCookie":
				user = true
			case "adminToken", "adminCookie":
				admin = true
			case "apiKey":
				key = true
			}
		}
	}
	switch {
	case user && key:
		return guardUserOrKey
	case user:
		return guardUser
	case admin:
		return guardAdmin
	case key:
		return guardKey
	}
	return guardNone
}

// groupGuard is the guard of an entry group, for a route that declares
// none and for a path no route serves.
func groupGuard(path string) guard {
	switch {
	case strings.HasPrefix(path, "/v1/user/"):
		return guardUser
	case strings.HasPrefix(path, "/v1/admin/"):
		return guardAdmin
	case strings.HasPrefix(path, "/v1/api/"):
		return guardKey
	}
	return guardNone
}

// guards maps each route to its guard: by "METHOD /path" pattern, and by
// path alone for a request whose method no route of its path serves (it
// is answered 405 under the path's guard when every route of the path
// has the same one).
type guards struct {
	// mu is written while the routes are declared and only read once
	// the server serves: every request takes the read lock.
	mu        sync.RWMutex
	byPattern map[string]guard
	byPath    map[string]guard
	mixed     map[string]bool
	paths     *http.ServeMux // path-only patterns, to find a request's path
}

// declare notes the guard of the route method path from its declared
// security and returns that security as the OpenAPI document shows it.
func (g *guards) declare(method, path string, sec []map[string][]string) []map[string][]string {
	gd := guardFor(sec)
	if len(sec) == 0 {
		sec = nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.byPattern == nil {
		g.byPattern, g.byPath, g.mixed, g.paths = map[string]guard{}, map[string]guard{}, map[string]bool{}, http.NewServeMux()
	}
	g.byPattern[method+" "+path] = gd
	if prev, ok := g.byPath[path]; ok {
		g.mixed[path] = g.mixed[path] || prev != gd
		return sec
	}
	g.byPath[path] = gd
	g.paths.HandleFunc(path, http.NotFound)
	return sec
}

// of is the guard of r, given the pattern of the route mux serves it with
// ("" when none).
func (g *guards) of(r *http.Request, pattern string) guard {
	g.mu.RLock()
	defer g.mu.RUnlock()
	gd, ok := g.byPattern[pattern]
	if !ok && g.paths != nil {
		if _, p := g.paths.Handler(r); p != "" && !g.mixed[p] {
			gd, ok = g.byPath[p]
		}
	}
	if !ok || gd == guardGroup {
		return groupGuard(r.URL.Path)
	}
	return gd
}
