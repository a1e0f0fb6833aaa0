package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"hostgate/internal/accounts"
)

type credentialsIn struct {
	Body struct {
		Email    string `json:"email" maxLength:"254" example:"ada@example.com"`
		Password string `json:"password" maxLength:"4096" doc:"8 to 1024 bytes; see docs/accounts.md"`
	}
}

// refreshIn is the input of refresh and logout. API clients send their
// refresh token in the body; the console sends {} (or no body) and the
// hub takes the gw_rt cookie instead, if the request comes from the
// hub's own pages (refreshToken).
type refreshIn struct {
	Body *struct {
		RefreshToken string `json:"refresh_token,omitempty" maxLength:"256" doc:"The refresh token; left out (or empty), the gw_rt cookie is used instead (browsers, same-origin requests only)"`
	}
	req *http.Request
}

// Resolve keeps the request, for its cookie and the cross-site check.
func (in *refreshIn) Resolve(ctx huma.Context) []error {
	in.req, _ = humago.Unwrap(ctx)
	return nil
}

// AuthResp is the spec's AuthResp.
type AuthResp struct {
	AccessToken  string        `json:"access_token"`
	RefreshToken string        `json:"refresh_token" doc:"32 random bytes, base64url; single use: each refresh returns a new one"`
	AccessTTL    int           `json:"access_ttl_s"`
	User         accounts.User `json:"user"`
}

// authOut sets gw_at (every path) and gw_rt (the refresh and logout
// routes only).
type authOut struct {
	SetCookie []http.Cookie `header:"Set-Cookie"`
	Body      AuthResp
}

type logoutOut struct {
	SetCookie []http.Cookie `header:"Set-Cookie"`
	Body      struct {
		OK bool `json:"ok"`
	}
}

func (s *Server) publicRoutes() {
	tags := []string{"auth"}
	op(s, huma.Operation{OperationID: "register", Method: http.MethodPost, Path: "/v1/public/auth/register",
		Summary: "Create an account and sign in", Description: "Sets the cookies gw_at and gw_rt (docs/accounts.md).", Tags: tags}, s.register)
	op(s, huma.Operation{OperationID: "login", Method: http.MethodPost, Path: "/v1/public/auth/login",
		Summary: "Sign in", Description: "401 invalid_credentials for a wrong email or password alike; 423 account_locked after repeated failures. " +
			"Sets the cookies gw_at and gw_rt.", Tags: tags}, s.login)
	op(s, huma.Operation{OperationID: "refresh", Method: http.MethodPost, Path: "/v1/public/auth/refresh",
		Summary: "Exchange a refresh token for a new token pair", Description: "A refresh token works once; presenting a used one ends its whole session. " +
			"Without refresh_token in the body the gw_rt cookie is used, only from the hub's own pages (403 forbidden from another site). " +
			"Sets both cookies anew.", Tags: tags}, s.refresh)
	op(s, huma.Operation{OperationID: "logout", Method: http.MethodPost, Path: "/v1/public/auth/logout",
		Summary: "End the session of a refresh token", Description: "Without refresh_token in the body the gw_rt cookie is used, " +
			"only from the hub's own pages. Clears both cookies.", Tags: tags}, s.logout)
}

func (s *Server) authAnswer(ctx context.Context, a accounts.Auth) *authOut {
	ttl := int(a.AccessTTL.Seconds())
	return &authOut{
		SetCookie: []http.Cookie{
			authCookie(ctx, userCookie, a.AccessToken, ttl),
			pathCookie(ctx, refreshCookie, refreshCookiePath, a.RefreshToken, int(a.RefreshTTL.Seconds())),
		},
		Body: AuthResp{AccessToken: a.AccessToken, RefreshToken: a.RefreshToken, AccessTTL: ttl, User: a.User},
	}
}

// clearCookies are the Set-Cookie values that end the console's session.
func clearCookies(ctx context.Context) []http.Cookie {
	return []http.Cookie{authCookie(ctx, userCookie, "", 0), pathCookie(ctx, refreshCookie, refreshCookiePath, "", 0)}
}

// withClearedCookies makes err's answer clear the console's cookies too.
func withClearedCookies(ctx context.Context, err error) error {
	h := http.Header{}
	for _, c := range clearCookies(ctx) {
		h.Add("Set-Cookie", c.String())
	}
	return huma.ErrorWithHeaders(err, h)
}

// refreshToken is the token a refresh or logout acts on: the body's, else
// the gw_rt cookie's, which counts only when the request passes the
// cross-site check cookie-authenticated requests pass (crosssite.go): a
// page of another site must not be able to rotate or end the session.
// fromCookie says the cookie was used.
func (s *Server) refreshToken(in *refreshIn) (tok string, fromCookie bool, err error) {
	if in.Body != nil && in.Body.RefreshToken != "" {
		return in.Body.RefreshToken, false, nil
	}
	c, err := in.req.Cookie(refreshCookie)
	if err != nil || c.Value == "" {
		return "", false, nil // the domain refuses the empty token
	}
	if err := s.refuseCrossSite(in.req, refreshCookie); err != nil {
		return "", false, err
	}
	return c.Value, true, nil
}

func (s *Server) register(ctx context.Context, in *credentialsIn) (*authOut, error) {
	if err := s.limitOp(ctx, limitRegister, in.Body.Email); err != nil {
		return nil, err
	}
	a, err := s.cfg.Accounts.Register(ctx, in.Body.Email, in.Body.Password)
	if err != nil {
		return nil, err
	}
	return s.authAnswer(ctx, a), nil
}

func (s *Server) login(ctx context.Context, in *credentialsIn) (*authOut, error) {
	if err := s.limitOp(ctx, limitLogin, in.Body.Email); err != nil {
		return nil, err
	}
	a, err := s.cfg.Accounts.Login(ctx, in.Body.Email, in.Body.Password)
	if err != nil {
		return nil, err
	}
	return s.authAnswer(ctx, a), nil
}

func (s *Server) refresh(ctx context.Context, in *refreshIn) (*authOut, error) {
	// Per address only: the account is known once the token is checked,
	// and a token works once.
	if err := s.limitOp(ctx, limitRefresh, ""); err != nil {
		return nil, err
	}
	tok, fromCookie, err := s.refreshToken(in)
	if err != nil {
		return nil, err
	}
	a, err := s.cfg.Accounts.Refresh(ctx, tok)
	if err != nil {
		if fromCookie {
			// A dead cookie is no use to keep: the console is signed out.
			err = withClearedCookies(ctx, err)
		}
		return nil, err
	}
	return s.authAnswer(ctx, a), nil
}

func (s *Server) logout(ctx context.Context, in *refreshIn) (*logoutOut, error) {
	tok, fromCookie, err := s.refreshToken(in)
	if err != nil {
		return nil, err
	}
	if err := s.cfg.Accounts.Logout(ctx, tok); err != nil {
		if fromCookie {
			err = withClearedCookies(ctx, err)
		}
		return nil, err
	}
	out := &logoutOut{SetCookie: clearCookies(ctx)}
	out.Body.OK = true
	return out, nil
}
