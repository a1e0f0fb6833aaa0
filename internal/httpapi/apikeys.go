package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/apikeys"
)

type keysOut struct {
	Body struct {
		Items []apikeys.Key `json:"items"`
	}
}

type createKeyIn struct {
	Body struct {
		Name string `json:"name" required:"false" maxLength:"1024" doc:"Required: 1 to 64 characters; no control or bidirectional control characters (docs/api.md, Names)"`
	}
}

type createdKeyOut struct{ Body apikeys.Created }

type keyIDIn struct {
	ID string `path:"id" maxLength:"64" doc:"Key id"`
}

func (s *Server) userKeyRoutes() {
	tags := []string{"api-keys"}
	op(s, huma.Operation{OperationID: "listAPIKeys", Method: http.MethodGet, Path: "/v1/user/api-keys",
		Summary: "List my API keys (never their secrets)", Tags: tags, Security: userSecurity}, s.listKeys)
	op(s, huma.Operation{OperationID: "createAPIKey", Method: http.MethodPost, Path: "/v1/user/api-keys",
		Summary: "Create an API key; its secret is shown only in this answer", Tags: tags, Security: userSecurity}, s.createKey)
	op(s, huma.Operation{OperationID: "deleteAPIKey", Method: http.MethodDelete, Path: "/v1/user/api-keys/{id}",
		Summary: "Delete an API key; it stops working at once", Tags: tags, Security: userSecurity}, s.deleteKey)
}

func (s *Server) listKeys(ctx context.Context, _ *struct{}) (*keysOut, error) {
	keys, err := s.cfg.APIKeys.List(ctx, userOf(ctx).UserID)
	if err != nil {
		return nil, err
	}
	out := &keysOut{}
	out.Body.Items = keys
	return out, nil
}

func (s *Server) createKey(ctx context.Context, in *createKeyIn) (*createdKeyOut, error) {
	k, err := s.cfg.APIKeys.Create(ctx, userOf(ctx).UserID, in.Body.Name)
	if err != nil {
		return nil, err
	}
	return &createdKeyOut{Body: k}, nil
}

func (s *Server) deleteKey(ctx context.Context, in *keyIDIn) (*OK, error) {
	if err := s.cfg.APIKeys.Delete(ctx, userOf(ctx).UserID, in.ID); err != nil {
		return nil, err
	}
	return ok(), nil
}
