package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"hostgate/internal/apperr"
)

// refuseCrossSite refuses a request that changes state, is authenticated
// by a console cookie and was started by a page of another site: the
// browser attaches the cookie by itself, so such a request need not be
// the user's doing (cross-site request forgery). A request carrying an
// Authorization header is not judged: no browser adds one on its own.
//
// Browsers say where a request comes from; the hub believes, in order:
//   - Sec-Fetch-Site (every current browser): same-origin passes.
//     same-site and cross-site pass only with an Origin the hub is
//     configured to trust (HOSTGATE_ALLOWED_ORIGINS: a console served
//     elsewhere). none, a navigation the browser started itself (typed
//     address, bookmark, a link opened from a mail or chat program), is
//     refused: another party can bring one about, and the consoles never
//     need one, since they fetch downloads from their own pages.
//   - Without it (older browsers), Origin: it must be the public URL's
//     origin, a configured one, or name the host the request was sent to;
//     "null" (sandboxed frames, some redirects) and "" never pass.
//   - With neither (a client outside a browser, or a browser too old for
//     both, which SameSite=Strict still covers), the request passes.
//
// This is http.CrossOriginProtection's test, made stricter for the hub:
// it refuses Sec-Fetch-Site none and judges the GETs that change state.
func (s *Server) refuseCrossSite(r *http.Request, cookie string) error {
	if r.Header.Get("Authorization") != "" || !changesState(r) {
		return nil
	}
	if other, what := s.fromOtherSite(r); other {
		return crossSite(cookie, what)
	}
	return nil
}

// fromOtherSite reports whether a browser says r was started by a page of
// another site (the rules above), and what said so. A request without
// Sec-Fetch-Site and Origin (a client outside a browser) is not.
func (s *Server) fromOtherSite(r *http.Request) (bool, string) {
	origin, hasOrigin := r.Header["Origin"]
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "same-origin":
		return false, ""
	case "":
		if hasOrigin && !s.trustedOrigin(origin[0]) && !sameHost(origin[0], r.Host) {
			return true, "Origin " + origin[0]
		}
		return false, ""
	case "same-site", "cross-site":
		if hasOrigin && s.trustedOrigin(origin[0]) {
			return false, ""
		}
		return true, "Sec-Fetch-Site " + site
	default:
		return true, "Sec-Fetch-Site " + site
	}
}

// trustedOrigin reports whether origin is the public URL's origin or one
// configured in HOSTGATE_ALLOWED_ORIGINS.
func (s *Server) trustedOrigin(origin string) bool {
	return slices.Contains(s.cfg.Options.AllowedOrigins, origin)
}

// sameHost reports whether origin names host (the request's Host).
func sameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && u.Host == host
}

func crossSite(cookie, what string) error {
	return apperr.New(apperr.CodeForbidden, "refused a request authenticated by the "+cookie+
		" cookie from another site ("+what+"): changes must come from the hub's own pages or carry an Authorization header")
}

// changesState reports whether r may change something: every method but
// GET, HEAD and OPTIONS, and the GETs that issue credentials.
func changesState(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return isUserInstaller(r.URL.Path)
	case http.MethodOptions:
		return false
	}
	return true
}

// isUserInstaller reports whether path is /v1/user/hosts/{id}/installer,
// which issues new install credentials (and so ends the running agent's
// at its next renewal).
func isUserInstaller(path string) bool {
	seg := strings.Split(path, "/")
	return len(seg) == 6 && seg[1] == "v1" && seg[2] == "user" && seg[3] == "hosts" && seg[4] != "" && seg[5] == "installer"
}
