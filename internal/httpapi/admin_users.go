package httpapi

import (
	"context"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/accounts"
	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/paging"
)

type idIn struct {
	ID string `path:"id" format:"uuid" doc:"Object id (UUID)"`
}

type listUsersIn struct {
	PageParams
	Q      string   `query:"q" maxLength:"254" doc:"Part of the email or display name (case-insensitive); a query of 1 or 2 characters matches the start of one of them"`
	Status string   `query:"status" enum:"active,suspended" doc:"Only users in this status"`
	Sort   userSort `query:"sort" doc:"Order; a leading - is descending (default -created_at, newest first)"`
}

// userSort is the sort parameter of GET /v1/admin/users, an
// accounts.UserSort; its OpenAPI enum is accounts.UserSorts.
type userSort string

// Schema implements huma.SchemaProvider.
func (userSort) Schema(huma.Registry) *huma.Schema { return enumSchema(accounts.UserSorts) }

func (s *Server) adminListUsers(ctx context.Context, in *listUsersIn) (*pagedOut[accounts.User], error) {
	res, err := s.cfg.Accounts.List(ctx, accounts.UserFilter{Query: in.Q, Status: accounts.Status(in.Status), Sort: accounts.UserSort(in.Sort)}, in.page())
	if err != nil {
		return nil, err
	}
	return &pagedOut[accounts.User]{Body: res}, nil
}

func (s *Server) adminSuspendUser(ctx context.Context, in *idIn) (*OK, error) {
	return ok(), s.cfg.Accounts.SetStatus(ctx, actor(ctx), in.ID, accounts.StatusSuspended)
}

func (s *Server) adminResumeUser(ctx context.Context, in *idIn) (*OK, error) {
	return ok(), s.cfg.Accounts.SetStatus(ctx, actor(ctx), in.ID, accounts.StatusActive)
}

type listAuditIn struct {
	PageParams
	AdminID    string `query:"admin_id" maxLength:"64" doc:"Only entries by this admin"`
	Action     string `query:"action" maxLength:"64" doc:"Only this action, e.g. user.suspend"`
	TargetType string `query:"target_type" maxLength:"64" doc:"Only this target type, e.g. user"`
	Since      string `query:"since" maxLength:"64" doc:"Only entries at or after this time (RFC 3339)"`
	Until      string `query:"until" maxLength:"64" doc:"Only entries before this time (RFC 3339)"`
}

func (s *Server) adminListAudit(ctx context.Context, in *listAuditIn) (*pagedOut[audit.Entry], error) {
	p := in.page()
	since, err := queryTime("since", in.Since)
	if err != nil {
		return nil, err
	}
	until, err := queryTime("until", in.Until)
	if err != nil {
		return nil, err
	}
	f := audit.Filter{AdminID: in.AdminID, Action: in.Action, TargetType: in.TargetType, Since: since, Until: until}
	items, total, err := s.cfg.Admins.ListAudit(ctx, f, p)
	if err != nil {
		return nil, err
	}
	return &pagedOut[audit.Entry]{Body: paging.NewResult(items, total, p)}, nil
}

// queryTime parses the RFC 3339 time of query parameter name; "" is the
// zero time, anything else unparsable invalid_query.
func queryTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, apperr.New(apperr.CodeInvalidQuery, name+" must be an RFC 3339 time, e.g. 2026-01-02T15:04:05Z")
	}
	return t, nil
}
