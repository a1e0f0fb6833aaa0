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

// authenticate authenticates every request before its handler runs, as
// its route declares (guard.go); a route that declares nothing, and a
// path no route serves, get their entry group's guard, so a protected
// prefix never reaches a handler unauthenticated, whatever the route or
// method.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pattern := s.mux.Handler(r)
		var err error
		switch s.guards.of(r, pattern) {
		case guardUserOrKey:
			if strings.HasPrefix(credential(r, ""), "ak_") {
				r, err = s.authClient(r)
			} else {
				r, err = s.authUser(r)
			}
		case guardUser:
			r, err = s.authUser(r)
		case guardAdmin:
			r, err = s.authAdmin(r)
		case guardKey:
			r, err = s.authClient(r)
		}
		if err != nil {
			writeProblem(w, problemFor(s.log, r, err))
			return
		}
		next.ServeHTTP(w, r)
	})
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
