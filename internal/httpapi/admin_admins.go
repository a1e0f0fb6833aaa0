package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"hostgate/internal/admin"
	"hostgate/internal/audit"
)

// The admins' own routes: their sessions (refresh, logout, who am I) and
// the management of admins by owners (docs/admin-roles.md).

// The admin console's refresh cookie, sent only to the admin refresh and
// logout routes.
const (
	adminRefreshCookie     = "gw_admin_rt"
	adminRefreshCookiePath = "/v1/admin/auth/"
)

// adminRefreshIn is the input of the admin refresh and logout.
type adminRefreshIn struct {
	Body *struct {
		RefreshToken string `json:"refresh_token,omitempty" maxLength:"256" doc:"The refresh token; left out (or empty), the gw_admin_rt cookie is used instead (browsers, same-origin requests only)"`
	}
	req *http.Request
}

// Resolve keeps the request, for its cookies and the cross-site check.
func (in *adminRefreshIn) Resolve(ctx huma.Context) []error {
	in.req, _ = humago.Unwrap(ctx)
	return nil
}

type adminOut struct {
	Body admin.Admin
}

type listAdminsIn struct {
	PageParams
	Q      string `query:"q" maxLength:"64" doc:"Matches part of the username (case-insensitive)"`
	Role   string `query:"role" enum:"owner,operator,finance,viewer" doc:"Only admins with this role"`
	Status string `query:"status" enum:"active,disabled" doc:"Only admins in this status"`
}

type createAdminIn struct {
	StepUp string `header:"X-Step-Up-Token" doc:"Token from POST /v1/admin/auth/step-up; needed to create an owner"`
	Body   struct {
		Username string `json:"username" maxLength:"64" example:"ops.lead"`
		Password string `json:"password" maxLength:"4096" doc:"8 to 1024 bytes"`
		Role     string `json:"role" enum:"owner,operator,finance,viewer"`
	}
}

type createAdminOut struct {
	Status int
	Body   admin.Admin
}

type setAdminRoleIn struct {
	// Not idIn embedded: huma does not see the path parameter then.
	ID     string `path:"id" format:"uuid" doc:"Object id (UUID)"`
	StepUp string `header:"X-Step-Up-Token" doc:"Token from POST /v1/admin/auth/step-up; needed to make an admin owner"`
	Body   struct {
		Role string `json:"role" enum:"owner,operator,finance,viewer"`
	}
}

func (s *Server) adminSessionRoutes() {
	tags := []string{"admin"}
	op(s, huma.Operation{OperationID: "adminRefresh", Method: http.MethodPost, Path: "/v1/admin/auth/refresh",
		Summary: "Exchange an admin refresh token for a new token pair", Description: "A refresh token works once; presenting a used one ends its whole session. " +
			"Without refresh_token in the body the gw_admin_rt cookie is used, only from the hub's own pages (403 forbidden from another site). " +
			"401 invalid_token once the session ended (signed out, the admin disabled or its role changed, expired). Sets both cookies anew.",
		Tags: tags, Security: noSecurity}, s.adminRefresh)
	op(s, huma.Operation{OperationID: "adminLogout", Method: http.MethodPost, Path: "/v1/admin/auth/logout",
		Summary: "End an admin session", Description: "Ends the session of the body's refresh_token, else of the gw_admin_rt cookie, " +
			"else of the access token (Authorization header or gw_admin_at cookie); cookies count only from the hub's own pages. " +
			"The session's access tokens are refused from then on, on every instance. Clears both cookies.",
		Tags: tags, Security: noSecurity}, s.adminLogout)
}

// adminAdminsRoutes declares GET /v1/admin/me (any role) and the owners'
// management of admins, in the route→role table.
func (s *Server) adminAdminsRoutes() {
	get, post := adminDoc(http.MethodGet), adminDoc(http.MethodPost)
	owners := admin.Allow()
	adminOp(s, admin.Anyone, "", get("/v1/admin/me", "adminMe", "The signed-in admin (its role says what the console shows)"), s.adminMe)
	adminOp(s, owners, "", get("/v1/admin/admins", "adminListAdmins", "List admins, by username"), s.adminListAdmins)
	create := post("/v1/admin/admins", "adminCreateAdmin", "Add an admin; an owner needs a step-up token")
	create.DefaultStatus = http.StatusCreated
	adminOp(s, owners, audit.ActionAdminCreate, create, s.adminCreateAdmin)
	adminOp(s, owners, audit.ActionAdminRoleChange, post("/v1/admin/admins/{id}/role", "adminSetAdminRole",
		"Change an admin's role: its sessions end; to owner needs a step-up token; 409 last_owner for the last enabled owner"), s.adminSetAdminRole)
	adminOp(s, owners, audit.ActionAdminDisable, post("/v1/admin/admins/{id}/disable", "adminDisableAdmin",
		"Disable an admin: its sessions end at once; 409 last_owner for the last enabled owner"), s.adminDisableAdmin)
	adminOp(s, owners, audit.ActionAdminEnable, post("/v1/admin/admins/{id}/enable", "adminEnableAdmin", "Let a disabled admin sign in again"), s.adminEnableAdmin)
}

func adminAuthAnswer(ctx context.Context, a admin.Auth) *adminAuthOut {
	ttl := int(a.AccessTTL.Seconds())
	return &adminAuthOut{
		SetCookie: []http.Cookie{
			authCookie(ctx, adminCookie, a.AccessToken, ttl),
			pathCookie(ctx, adminRefreshCookie, adminRefreshCookiePath, a.RefreshToken, int(a.RefreshTTL.Seconds())),
		},
		Body: AdminAuthResp{AccessToken: a.AccessToken, RefreshToken: a.RefreshToken, AccessTTL: ttl, User: a.Admin, Admin: a.Admin},
	}
}

// clearAdminCookies are the Set-Cookie values that end the admin console's
// session.
func clearAdminCookies(ctx context.Context) []http.Cookie {
	return []http.Cookie{authCookie(ctx, adminCookie, "", 0), pathCookie(ctx, adminRefreshCookie, adminRefreshCookiePath, "", 0)}
}

// withClearedAdminCookies makes err's answer clear the admin cookies too.
func withClearedAdminCookies(ctx context.Context, err error) error {
	h := http.Header{}
	for _, c := range clearAdminCookies(ctx) {
		h.Add("Set-Cookie", c.String())
	}
	return huma.ErrorWithHeaders(err, h)
}

// adminRefreshToken is the refresh token an admin refresh or logout acts
// on: the body's, else the gw_admin_rt cookie's, which counts only when
// the request passes the cross-site check (refreshToken does the same for
// users).
func (s *Server) adminRefreshToken(in *adminRefreshIn) (tok string, fromCookie bool, err error) {
	if in.Body != nil && in.Body.RefreshToken != "" {
		return in.Body.RefreshToken, false, nil
	}
	c, err := in.req.Cookie(adminRefreshCookie)
	if err != nil || c.Value == "" {
		return "", false, nil // the domain refuses the empty token
	}
	if err := s.refuseCrossSite(in.req, adminRefreshCookie); err != nil {
		return "", false, err
	}
	return c.Value, true, nil
}

func (s *Server) adminRefresh(ctx context.Context, in *adminRefreshIn) (*adminAuthOut, error) {
	// Per address only, as for users (refresh).
	if err := s.limitOp(ctx, limitAdminRefresh, ""); err != nil {
		return nil, err
	}
	tok, fromCookie, err := s.adminRefreshToken(in)
	if err != nil {
		return nil, err
	}
	a, err := s.cfg.Admins.Refresh(ctx, tok)
	if err != nil {
		if fromCookie {
			err = withClearedAdminCookies(ctx, err)
		}
		return nil, err
	}
	return adminAuthAnswer(ctx, a), nil
}

func (s *Server) adminLogout(ctx context.Context, in *adminRefreshIn) (*logoutOut, error) {
	tok, fromCookie, err := s.adminRefreshToken(in)
	if err != nil {
		return nil, err
	}
	if tok != "" {
		err = s.cfg.Admins.Logout(ctx, tok)
	} else {
		// No refresh token: the access token's session, the way the guard
		// of the admin routes would authenticate it.
		var r *http.Request
		if r, err = s.authAdmin(in.req); err == nil {
			p, _ := adminOf(r.Context())
			err = s.cfg.Admins.EndSession(ctx, p)
		}
		fromCookie = in.req.Header.Get("Authorization") == ""
	}
	if err != nil {
		if fromCookie {
			err = withClearedAdminCookies(ctx, err)
		}
		return nil, err
	}
	out := &logoutOut{SetCookie: clearAdminCookies(ctx)}
	out.Body.OK = true
	return out, nil
}

func (s *Server) adminMe(ctx context.Context, _ *struct{}) (*adminOut, error) {
	p, _ := adminOf(ctx)
	a, err := s.cfg.Admins.Get(ctx, p.AdminID)
	if err != nil {
		return nil, err
	}
	return &adminOut{Body: a}, nil
}

func (s *Server) adminListAdmins(ctx context.Context, in *listAdminsIn) (*pagedOut[admin.Admin], error) {
	res, err := s.cfg.Admins.List(ctx, admin.Filter{Query: in.Q, Role: admin.Role(in.Role), Status: in.Status}, in.page())
	if err != nil {
		return nil, err
	}
	return &pagedOut[admin.Admin]{Body: res}, nil
}

func (s *Server) adminCreateAdmin(ctx context.Context, in *createAdminIn) (*createAdminOut, error) {
	p, _ := adminOf(ctx)
	a, err := s.cfg.Admins.Add(ctx, p, actor(ctx), in.StepUp,
		admin.NewAdmin{Username: in.Body.Username, Password: in.Body.Password, Role: admin.Role(in.Body.Role)})
	if err != nil {
		return nil, err
	}
	return &createAdminOut{Status: http.StatusCreated, Body: a}, nil
}

func (s *Server) adminSetAdminRole(ctx context.Context, in *setAdminRoleIn) (*adminOut, error) {
	p, _ := adminOf(ctx)
	a, err := s.cfg.Admins.SetRole(ctx, p, actor(ctx), in.StepUp, in.ID, admin.Role(in.Body.Role))
	if err != nil {
		return nil, err
	}
	return &adminOut{Body: a}, nil
}

func (s *Server) adminDisableAdmin(ctx context.Context, in *idIn) (*adminOut, error) {
	return s.setAdminStatus(ctx, in.ID, admin.StatusDisabled)
}

func (s *Server) adminEnableAdmin(ctx context.Context, in *idIn) (*adminOut, error) {
	return s.setAdminStatus(ctx, in.ID, admin.StatusActive)
}

func (s *Server) setAdminStatus(ctx context.Context, id, status string) (*adminOut, error) {
	a, err := s.cfg.Admins.SetStatusByID(ctx, actor(ctx), id, status)
	if err != nil {
		return nil, err
	}
	return &adminOut{Body: a}, nil
}
