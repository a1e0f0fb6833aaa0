package httpapi

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/accounts"
	"hostgate/internal/admin"
	"hostgate/internal/apikeys"
	"hostgate/internal/paging"
)

// adminUserDetailRoutes declares the reads of a user's page besides the
// user itself: its lines belong to the admin route→role table
// (adminRoutes), as docs/admin-roles.md shows.
func (s *Server) adminUserDetailRoutes(get func(path, id, summary string) huma.Operation) {
	adminOp(s, admin.Anyone, "", get("/v1/admin/users/{id}/billing-events", "adminUserBillingEvents", "A user's billing events, newest first"), s.adminUserBillingEvents)
	adminOp(s, admin.Anyone, "", get("/v1/admin/users/{id}/api-keys", "adminUserAPIKeys", "A user's API keys, revoked ones too (never a secret)"), s.adminUserAPIKeys)
}

// AdminUser is a user as the back office's user page shows it: the user
// and what it holds.
type AdminUser struct {
	accounts.User
	Balance     float64 `json:"balance" doc:"Tokens"`
	HostCount   int     `json:"host_count" doc:"Undeleted hosts"`
	APIKeyCount int     `json:"api_key_count" doc:"API keys not revoked"`
}

type adminUserOut struct{ Body AdminUser }

func (s *Server) adminGetUser(ctx context.Context, in *idIn) (*adminUserOut, error) {
	u, err := s.cfg.Accounts.Get(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	bal, err := s.cfg.Billing.Balance(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	nHosts, err := s.cfg.Hosts.CountOwned(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	nKeys, err := s.cfg.APIKeys.Count(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return &adminUserOut{Body: AdminUser{User: u, Balance: bal.Tokens(), HostCount: nHosts, APIKeyCount: nKeys}}, nil
}

// userPageIn is a user id and a page, declared as plain fields: huma
// reads no parameters of an embedded unexported struct.
type userPageIn struct {
	ID     string `path:"id" format:"uuid" doc:"Object id (UUID)"`
	Limit  int    `query:"limit" minimum:"1" maximum:"200" default:"50" doc:"Items per page (default 50, at most 200)"`
	Offset int    `query:"offset" minimum:"0" maximum:"100000" default:"0" doc:"Items to skip (at most 100000)"`
}

func (s *Server) adminUserBillingEvents(ctx context.Context, in *userPageIn) (*pagedOut[BillingEvent], error) {
	if _, err := s.cfg.Accounts.Get(ctx, in.ID); err != nil {
		return nil, err
	}
	res, err := s.cfg.Billing.Events(ctx, in.ID, PageParams{Limit: in.Limit, Offset: in.Offset}.page())
	if err != nil {
		return nil, err
	}
	return &pagedOut[BillingEvent]{Body: paging.Map(res, billingEventOf)}, nil
}

type adminKeysOut struct {
	Body struct {
		Items []apikeys.AdminKey `json:"items" doc:"Newest first, at most 500"`
	}
}

func (s *Server) adminUserAPIKeys(ctx context.Context, in *idIn) (*adminKeysOut, error) {
	if _, err := s.cfg.Accounts.Get(ctx, in.ID); err != nil {
		return nil, err
	}
	keys, err := s.cfg.APIKeys.AdminList(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	out := &adminKeysOut{}
	out.Body.Items = keys
	return out, nil
}
