package httpapi

import (
	"context"
	"net/http"
	"strings"

	"hostgate/internal/accounts"
	"hostgate/internal/admin"
	"hostgate/internal/apperr"
	"hostgate/internal/audit"
)

// Cookie names (spec section 5), and the console's refresh cookie, sent
// only to the refresh and logout routes (docs/accounts.md).
const (
	userCookie        = "gw_at"
	adminCookie       = "gw_admin_at"
	refreshCookie     = "gw_rt"
	refreshCookiePath = "/v1/public/auth/"
)

// publicAdminPaths are the admin paths reachable without an admin token.
var publicAdminPaths = map[string]bool{"/v1/admin/auth/login": true}

// authenticate guards whole entry groups by path prefix, before any route
// matching, so a protected prefix never reaches a handler unauthenticated,
// whatever the route or method.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		var err error
		switch {
		case isTerminalWS(p):
			// The single-use ticket is the credential (terminal_ws.go).
		case strings.HasPrefix(p, "/v1/user/") && keyAllowedUnderUser(p) && strings.HasPrefix(credential(r, ""), "ak_"):
			r, err = s.authClient(r)
		case strings.HasPrefix(p, "/v1/user/"):
			r, err = s.authUser(r)
		case strings.HasPrefix(p, "/v1/admin/") && !publicAdminPaths[p]:
			r, err = s.authAdmin(r)
		case strings.HasPrefix(p, "/v1/api/"):
			r, err = s.authClient(r)
		}
		if err != nil {
			writeProblem(w, problemFor(s.log, r, err))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isTerminalWS reports whether path is exactly a terminal WebSocket route,
// /v1/{user,admin}/hosts/{id}/terminal/ws; any variant of it is not.
func isTerminalWS(path string) bool {
	seg := strings.Split(path, "/")
	return len(seg) == 7 && seg[0] == "" && seg[1] == "v1" && (seg[2] == "user" || seg[2] == "admin") &&
		seg[3] == "hosts" && seg[4] != "" && seg[5] == "terminal" && seg[6] == "ws"
}

// credential returns the bearer token, else the named cookie.
func credential(r *http.Request, cookie string) string {
	if h := r.Header.Get("Authorization"); h != "" {
		tok, ok := strings.CutPrefix(h, "Bearer ")
		if !ok {
			return ""
		}
		return strings.TrimSpace(tok)
	}
	if c, err := r.Cookie(cookie); cookie != "" && err == nil {
		return c.Value
	}
	return ""
}

func unauthorized(what string) error {
	return apperr.New(apperr.CodeUnauthorized, what+" required")
}

func (s *Server) authUser(r *http.Request) (*http.Request, error) {
	tok := credential(r, userCookie)
	if tok == "" {
		return r, unauthorized("user access token")
	}
	if err := s.refuseCrossSite(r, userCookie); err != nil {
		return r, err
	}
	p, err := s.cfg.Accounts.Authenticate(r.Context(), tok)
	if err != nil {
		return r, err
	}
	return r.WithContext(context.WithValue(r.Context(), keyUser, p)), nil
}

func (s *Server) authAdmin(r *http.Request) (*http.Request, error) {
	tok := credential(r, adminCookie)
	if tok == "" {
		return r, unauthorized("admin access token")
	}
	if err := s.refuseCrossSite(r, adminCookie); err != nil {
		return r, err
	}
	p, err := s.cfg.Admins.Authenticate(r.Context(), tok)
	if err != nil {
		return r, err
	}
	return r.WithContext(context.WithValue(r.Context(), keyAdmin, p)), nil
}

// userOf returns the authenticated user; the prefix guard guarantees one
// on every /v1/user route.
func userOf(ctx context.Context) accounts.Principal {
	p, _ := ctx.Value(keyUser).(accounts.Principal)
	return p
}

func adminOf(ctx context.Context) (admin.Principal, bool) {
	p, ok := ctx.Value(keyAdmin).(admin.Principal)
	return p, ok
}

// actor describes the admin behind a request for its audit entry.
func actor(ctx context.Context) audit.Actor {
	p, _ := adminOf(ctx)
	return audit.Actor{AdminID: p.AdminID, Role: string(p.Role), RequestID: requestID(ctx), ClientIP: clientIP(ctx)}
}

// authCookie builds an access-token cookie; an empty value clears it.
// SameSite=Strict: a browser sends it on no request another site starts,
// link clicks included (the consoles' own pages fetch their data
// themselves); refuseCrossSite is the check that does not depend on the
// browser honouring it.
func authCookie(ctx context.Context, name, value string, maxAge int) http.Cookie {
	return pathCookie(ctx, name, "/", value, maxAge)
}

// pathCookie is authCookie for the paths below path only.
func pathCookie(ctx context.Context, name, path, value string, maxAge int) http.Cookie {
	if value == "" {
		maxAge = -1
	}
	return http.Cookie{
		Name: name, Value: value, Path: path, MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secure(ctx),
	}
}
