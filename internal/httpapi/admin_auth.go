package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/admin"
	"hostgate/internal/audit"
)

type adminLoginIn struct {
	Body struct {
		Username string `json:"username" maxLength:"64"`
		Password string `json:"password" maxLength:"4096"`
	}
}

// AdminAuthResp is AuthResp for an admin: user and admin are the same
// admin (user for clients written against the users' answer).
type AdminAuthResp struct {
	AccessToken  string      `json:"access_token"`
	RefreshToken string      `json:"refresh_token" doc:"32 random bytes, base64url; single use: each refresh returns a new one"`
	AccessTTL    int         `json:"access_ttl_s"`
	User         admin.Admin `json:"user" doc:"The admin, as in admin"`
	Admin        admin.Admin `json:"admin"`
}

// adminAuthOut sets gw_admin_at (every path) and gw_admin_rt (the admin
// refresh and logout routes only).
type adminAuthOut struct {
	SetCookie []http.Cookie `header:"Set-Cookie"`
	Body      AdminAuthResp
}

func (s *Server) adminLogin(ctx context.Context, in *adminLoginIn) (*adminAuthOut, error) {
	if err := s.limitOp(ctx, limitAdminLogin, in.Body.Username); err != nil {
		return nil, err
	}
	a, err := s.cfg.Admins.Login(ctx, in.Body.Username, in.Body.Password)
	if err != nil {
		return nil, err
	}
	return adminAuthAnswer(ctx, a), nil
}

func (s *Server) adminRoutes() {
	op(s, huma.Operation{OperationID: "adminLogin", Method: http.MethodPost, Path: "/v1/admin/auth/login",
		Summary: "Admin sign-in: a one-hour access token and a refresh token", Description: "401 invalid_credentials for a wrong username or password " +
			"and a disabled admin alike; 423 account_locked after repeated failures. Sets the cookies gw_admin_at and gw_admin_rt (docs/admin-roles.md).",
		Tags: []string{"admin"}, Security: noSecurity}, s.adminLogin)
	s.adminSessionRoutes()

	// The admin route→role table: each line names who may call it and, for
	// writes, the audit action it records. docs/admin-roles.md mirrors it.
	var (
		get  = adminDoc(http.MethodGet)
		post = adminDoc(http.MethodPost)
		del  = adminDoc(http.MethodDelete)
	)
	adminOp(s, admin.Anyone, "", get("/v1/admin/dashboard/summary", "adminDashboard", "Back-office summary"), s.adminDashboard)
	adminOp(s, admin.Anyone, "", get("/v1/admin/users", "adminListUsers", "List users"), s.adminListUsers)
	adminOp(s, admin.Anyone, "", get("/v1/admin/users/{id}", "adminGetUser", "Get a user"), s.adminGetUser)
	adminOp(s, admin.Allow(admin.Operator), audit.ActionUserSuspend, post("/v1/admin/users/{id}/suspend", "adminSuspendUser", "Suspend a user: every session ends at once"), s.adminSuspendUser)
	adminOp(s, admin.Allow(admin.Operator), audit.ActionUserResume, post("/v1/admin/users/{id}/resume", "adminResumeUser", "Resume a suspended user"), s.adminResumeUser)
	adminOp(s, admin.Anyone, "", get("/v1/admin/users/{id}/ledger-check", "adminLedgerCheck", "Check that the balance equals the sum of the user's billing events"), s.adminLedgerCheck)
	adminOp(s, admin.Anyone, "", get("/v1/admin/pricing-rules", "adminListPricingRules", "Pricing rules (include_expired for ended ones)"), s.adminListRules)
	adminOp(s, admin.Allow(admin.Finance), audit.ActionPricingCreate, post("/v1/admin/pricing-rules", "adminCreatePricingRule", "Add a pricing rule"), s.adminCreateRule)
	adminOp(s, admin.Allow(admin.Finance), audit.ActionPricingUpdate, adminDoc(http.MethodPut)("/v1/admin/pricing-rules/{id}", "adminUpdatePricingRule", "Change a rule's price, description or end, effective at once"), s.adminUpdateRule)
	adminOp(s, admin.Anyone, "", get("/v1/admin/gateway-versions", "adminListVersions", "Published agent versions"), s.adminListVersions)
	adminOp(s, admin.Allow(admin.Operator), audit.ActionVersionPublish, post("/v1/admin/gateway-versions", "adminPublishVersion", "Publish an agent version"), s.adminPublishVersion)
	adminOp(s, admin.Allow(admin.Operator), audit.ActionVersionYank, post("/v1/admin/gateway-versions/{ver}/yank", "adminYankVersion", "Withdraw a version: it can no longer be installed"), s.adminYankVersion)
	adminOp(s, admin.Anyone, "", get("/v1/admin/recharges", "adminListRecharges", "Recharge orders of every user"), s.adminListRecharges)
	adminOp(s, admin.Allow(admin.Finance), audit.ActionRechargeRefund, post("/v1/admin/recharges/{id}/refund", "adminRefundRecharge", "Refund a paid order: debits what it credited"), s.adminRefundRecharge)
	adminOp(s, admin.Allow(admin.Finance), audit.ActionUserBalanceAdjust, post("/v1/admin/users/{id}/balance/adjust", "adminAdjustBalance", "Add or take tokens, with a reason"), s.adminAdjustBalance)
	adminOp(s, admin.Anyone, "", get("/v1/admin/hosts", "adminListHosts", "List hosts of every user"), s.adminListHosts)
	adminOp(s, admin.Anyone, "", get("/v1/admin/hosts/{id}", "adminGetHost", "Get any host with its live state"), s.adminGetHost)
	adminOp(s, admin.Allow(admin.Operator), audit.ActionHostPushUpgrade, post("/v1/admin/hosts/{id}/push-upgrade", "adminPushUpgrade", "Upgrade a host's agent to a published version"), s.adminPushUpgrade)
	adminOp(s, admin.Allow(admin.Operator), audit.ActionHostDelete, del("/v1/admin/hosts/{id}", "adminDeleteHost", "Delete a host (soft); its agent is dropped at once"), s.adminDeleteHost)
	adminOp(s, admin.Allow(admin.Operator), audit.ActionHostBan, post("/v1/admin/hosts/{id}/ban", "adminBanHost", "Ban a host: dropped now, refused on every agent route"), s.adminBanHost)
	adminOp(s, admin.Allow(admin.Operator), audit.ActionHostUnban, post("/v1/admin/hosts/{id}/unban", "adminUnbanHost", "Unban a host (to offline until it reconnects)"), s.adminUnbanHost)
	adminOp(s, admin.Anyone, "", get("/v1/admin/hosts/{id}/metrics", "adminHostMetrics", "A host's newest metrics samples"), s.adminHostMetrics)
	adminOp(s, admin.Anyone, "", get("/v1/admin/hosts/{id}/events", "adminHostEvents", "A host's newest events"), s.adminHostEvents)
	adminOp(s, admin.Anyone, "", get("/v1/admin/audit-logs", "adminListAudit", "List audit log entries, newest first"), s.adminListAudit)
	s.adminAdminsRoutes()
	// The admin console's dashboard and detail pages (admin_dashboard.go,
	// admin_user_detail.go): reads, any role.
	s.adminDashboardRoutes(get)
	s.adminUserDetailRoutes(get)
}

// adminDoc returns a constructor of admin operation docs for one method.
func adminDoc(method string) func(path, id, summary string) huma.Operation {
	return func(path, id, summary string) huma.Operation {
		return huma.Operation{OperationID: id, Method: method, Path: path, Summary: summary, Tags: []string{"admin"}}
	}
}
