package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/accounts"
)

type userOut struct{ Body accounts.User }

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
