package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/accounts"
)

type credentialsIn struct {
	Body struct {
		Email    string `json:"email" maxLength:"254" example:"ada@example.com"`
		Password string `json:"password" maxLength:"4096" doc:"8 to 1024 bytes; see docs/accounts.md"`
	}
}

type refreshIn struct {
	Body struct {
		RefreshToken string `json:"refresh_token" maxLength:"256"`
	}
}

// AuthResp is the spec's AuthResp.
type AuthResp struct {
	AccessToken  string        `json:"access_token"`
	RefreshToken string        `json:"refresh_token" doc:"32 random bytes, base64url; single use: each refresh returns a new one"`
	AccessTTL    int           `json:"access_ttl_s"`
	User         accounts.User `json:"user"`
}

type authOut struct {
	SetCookie http.Cookie `header:"Set-Cookie"`
	Body      AuthResp
}

type logoutOut struct {
	SetCookie http.Cookie `header:"Set-Cookie"`
	Body      struct {
		OK bool `json:"ok"`
	}
}

func (s *Server) publicRoutes() {
	tags := []string{"auth"}
	op(s, huma.Operation{OperationID: "register", Method: http.MethodPost, Path: "/v1/public/auth/register",
		Summary: "Create an account and sign in", Tags: tags}, s.register)
	op(s, huma.Operation{OperationID: "login", Method: http.MethodPost, Path: "/v1/public/auth/login",
		Summary: "Sign in", Description: "401 invalid_credentials for a wrong email or password alike; 423 account_locked after repeated failures.", Tags: tags}, s.login)
	op(s, huma.Operation{OperationID: "refresh", Method: http.MethodPost, Path: "/v1/public/auth/refresh",
		Summary: "Exchange a refresh token for a new token pair", Description: "A refresh token works once; presenting a used one ends its whole session.", Tags: tags}, s.refresh)
	op(s, huma.Operation{OperationID: "logout", Method: http.MethodPost, Path: "/v1/public/auth/logout",
		Summary: "End the session of a refresh token", Tags: tags}, s.logout)
}

func (s *Server) authAnswer(ctx context.Context, a accounts.Auth) *authOut {
	ttl := int(a.AccessTTL.Seconds())
	return &authOut{
		SetCookie: authCookie(ctx, userCookie, a.AccessToken, ttl),
		Body:      AuthResp{AccessToken: a.AccessToken, RefreshToken: a.RefreshToken, AccessTTL: ttl, User: a.User},
	}
}

func (s *Server) register(ctx context.Context, in *credentialsIn) (*authOut, error) {
	a, err := s.cfg.Accounts.Register(ctx, in.Body.Email, in.Body.Password)
	if err != nil {
		return nil, err
	}
	return s.authAnswer(ctx, a), nil
}

func (s *Server) login(ctx context.Context, in *credentialsIn) (*authOut, error) {
	a, err := s.cfg.Accounts.Login(ctx, in.Body.Email, in.Body.Password)
	if err != nil {
		return nil, err
	}
	return s.authAnswer(ctx, a), nil
}

func (s *Server) refresh(ctx context.Context, in *refreshIn) (*authOut, error) {
	a, err := s.cfg.Accounts.Refresh(ctx, in.Body.RefreshToken)
	if err != nil {
		return nil, err
	}
	return s.authAnswer(ctx, a), nil
}

func (s *Server) logout(ctx context.Context, in *refreshIn) (*logoutOut, error) {
	if err := s.cfg.Accounts.Logout(ctx, in.Body.RefreshToken); err != nil {
		return nil, err
	}
	out := &logoutOut{SetCookie: authCookie(ctx, userCookie, "", 0)}
	out.Body.OK = true
	return out, nil
}
