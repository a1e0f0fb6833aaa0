package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/accounts"
)

type userOut struct{ Body accounts.User }

type changePasswordIn struct {
	Body struct {
		CurrentPassword string `json:"current_password" maxLength:"4096"`
		NewPassword     string `json:"new_password" maxLength:"4096" doc:"8 to 1024 bytes; see docs/accounts.md"`
	}
}

type updateMeIn struct {
	Body struct {
		DisplayName string `json:"display_name" maxLength:"256" doc:"1 to 64 characters; no control or bidirectional control characters (docs/api.md, Names)"`
	}
}

func (s *Server) userRoutes() {
	tags := []string{"user"}
	op(s, huma.Operation{OperationID: "getMe", Method: http.MethodGet, Path: "/v1/user/me",
		Summary: "The signed-in user", Tags: tags, Security: userSecurity}, s.getMe)
	op(s, huma.Operation{OperationID: "updateMe", Method: http.MethodPut, Path: "/v1/user/me",
		Summary: "Change the display name", Tags: tags, Security: userSecurity}, s.updateMe)
	op(s, huma.Operation{OperationID: "changePassword", Method: http.MethodPost, Path: "/v1/user/me/password",
		Summary: "Change the password and sign out every session", Description: "Ends every session of the user, this one included, " +
			"and answers with a new one as login does. A wrong current_password is 401 invalid_credentials and counts toward the login lockout (423 account_locked).",
		Tags: tags, Security: userSecurity}, s.changePassword)
}

func (s *Server) changePassword(ctx context.Context, in *changePasswordIn) (*authOut, error) {
	a, err := s.cfg.Accounts.ChangePassword(ctx, userOf(ctx).UserID, in.Body.CurrentPassword, in.Body.NewPassword)
	if err != nil {
		return nil, err
	}
	return s.authAnswer(ctx, a), nil
}

func (s *Server) getMe(ctx context.Context, _ *struct{}) (*userOut, error) {
	u, err := s.cfg.Accounts.Get(ctx, userOf(ctx).UserID)
	if err != nil {
		return nil, err
	}
	return &userOut{Body: u}, nil
}

func (s *Server) updateMe(ctx context.Context, in *updateMeIn) (*userOut, error) {
	u, err := s.cfg.Accounts.UpdateDisplayName(ctx, userOf(ctx).UserID, in.Body.DisplayName)
	if err != nil {
		return nil, err
	}
	return &userOut{Body: u}, nil
}
