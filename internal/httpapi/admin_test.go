package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"hostgate/internal/audit"
	"hostgate/internal/battery"
	"hostgate/internal/billing"
	"hostgate/internal/hubtest"
	"hostgate/internal/versions"
)

type auditPage struct {
	Items []struct {
		AdminID    string `json:"admin_id"`
		AdminRole  string `json:"admin_role"`
		Action     string `json:"action"`
		TargetType string `json:"target_type"`
		TargetID   string `json:"target_id"`
		RequestID  string `json:"request_id"`
		ClientIP   string `json:"client_ip"`
	} `json:"items"`
	Total  int `json:"total"`
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
}

func auditRows(t *testing.T, h *hubtest.Hub, tok, query string) auditPage {
	t.Helper()
	var p auditPage
	h.Client(t).As(tok).Do("GET", "/v1/admin/audit-logs"+query, nil).Want(t, 200, "").JSON(t, &p)
	return p
}

func TestSuspendEndsEveryCredentialAtOnce(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		u := h.Register(t)
		var second hubtest.Auth
		c.Do("POST", "/v1/public/auth/login", map[string]string{"email": u.User.Email, "password": hubtest.Password}).Want(t, 200, "").JSON(t, &second)
		c.As(u.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 200, "")

		op, opID := h.Admin(t, "operator")
		resp := c.As(op).Do("POST", "/v1/admin/users/"+u.User.ID+"/suspend", nil).Want(t, 200, "")

		// Both sessions' unexpired access tokens are refused on their next call.
		c.As(u.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 401, "invalid_token")
		c.As(second.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 401, "invalid_token")
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": second.RefreshToken}).Want(t, 403, "account_suspended")
		c.Do("POST", "/v1/public/auth/login", map[string]string{"email": u.User.Email, "password": hubtest.Password}).Want(t, 403, "account_suspended")

		var got struct{ Status string }
		c.As(op).Do("GET", "/v1/admin/users/"+u.User.ID, nil).Want(t, 200, "").JSON(t, &got)
		if got.Status != "suspended" {
			t.Errorf("status = %q, want suspended", got.Status)
		}
		rows := auditRows(t, h, op, "?action=user.suspend")
		if rows.Total != 1 {
			t.Fatalf("user.suspend rows = %d, want 1", rows.Total)
		}
		r := rows.Items[0]
		if r.AdminID != opID || r.AdminRole != "operator" || r.TargetType != "user" || r.TargetID != u.User.ID ||
			r.RequestID != resp.Header.Get("X-Request-Id") || r.ClientIP != "127.0.0.1" {
			t.Errorf("audit row = %+v", r)
		}

		c.As(op).Do("POST", "/v1/admin/users/"+u.User.ID+"/resume", nil).Want(t, 200, "")
		var again hubtest.Auth
		c.Do("POST", "/v1/public/auth/login", map[string]string{"email": u.User.Email, "password": hubtest.Password}).Want(t, 200, "").JSON(t, &again)
		c.As(again.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 200, "")
		// Tokens from before the suspension stay dead.
		c.As(u.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 401, "invalid_token")
		if n := auditRows(t, h, op, "?action=user.resume").Total; n != 1 {
			t.Errorf("user.resume rows = %d, want 1", n)
		}
		if n := auditRows(t, h, op, "?admin_id="+opID+"&target_type=user").Total; n != 2 {
			t.Errorf("rows by this operator on users = %d, want 2", n)
		}
		if n := auditRows(t, h, op, "?admin_id=00000000-0000-4000-8000-000000000000").Total; n != 0 {
			t.Errorf("rows by another admin = %d, want 0", n)
		}
	})
}

// TestAdminRolesAndAudit walks the route→role table: every role on every
// admin write route, checking who is refused and that exactly the allowed
// calls leave audit rows.
func TestAdminRolesAndAudit(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		tokens := map[string]string{}
		for _, role := range []string{"owner", "operator", "finance", "viewer"} {
			tokens[role], _ = h.Admin(t, role)
		}
		allowed := 0
		for _, rt := range h.Server().AdminPolicy() {
			if rt.Method == "GET" {
				continue
			}
			if rt.Action == "" {
				t.Errorf("%s %s is a write without an audit action", rt.Method, rt.Path)
			}
			for role, tok := range tokens {
				target := h.Register(t).User.ID
				if strings.HasPrefix(rt.Path, "/v1/admin/pricing-rules/") {
					r, err := h.Billing.CreateRule(t.Context(), audit.Actor{AdminID: "setup"}, billing.NewRule{Code: "control.x.per_call", Tokens: 1})
					if err != nil {
						t.Fatal(err)
					}
					target = r.ID
				}
				body := adminWriteBodies[rt.Path]
				if strings.HasPrefix(rt.Path, "/v1/admin/gateway-versions") {
					ver := fmt.Sprintf("0.%d.0", versionSeq.Add(1))
					body = map[string]any{"version": ver, "exe_url": "https://dl.example.com/a.exe",
						"exe_sha256": strings.Repeat("ab", 32), "exe_size_bytes": 10}
					if strings.HasSuffix(rt.Path, "/yank") {
						if _, err := h.Versions.Publish(t.Context(), audit.Actor{AdminID: "setup"}, versions.Publish{Version: ver,
							ExeURL: "https://dl.example.com/a.exe", ExeSHA256: strings.Repeat("ab", 32), ExeSizeBytes: 10}); err != nil {
							t.Fatal(err)
						}
						target = ver
					}
				}
				if strings.Contains(rt.Path, "/recharges/") {
					r, err := h.Billing.CreateRecharge(t.Context(), target, 10)
					if err != nil {
						t.Fatal(err)
					}
					if _, _, err := h.Billing.ApplyPayment(t.Context(), "dummy", r.OrderNo, r.AmountFen); err != nil {
						t.Fatal(err)
					}
					target = r.ID
				}
				if strings.HasPrefix(rt.Path, "/v1/admin/admins") {
					name := "adm-" + strings.ToLower(hubtest.UniqueEmail()[5:17])
					a, err := h.Admins.Create(t.Context(), name, hubtest.Password, "viewer")
					if err != nil {
						t.Fatal(err)
					}
					target = a.ID
					body = map[string]string{"username": name + "-new", "password": hubtest.Password, "role": "viewer"}
					if strings.HasSuffix(rt.Path, "/role") {
						body = map[string]string{"role": "finance"}
					}
				}
				switch {
				case strings.HasSuffix(rt.Path, "/push-upgrade"):
					ver := fmt.Sprintf("0.%d.0", versionSeq.Add(1))
					if _, err := h.Versions.Publish(t.Context(), audit.Actor{AdminID: "setup"}, versions.Publish{Version: ver,
						ExeURL: "http://127.0.0.1:1/a.exe", ExeSHA256: strings.Repeat("ab", 32), ExeSizeBytes: 10}); err != nil {
						t.Fatal(err)
					}
					target = h.ConnectAgent(t, target, nil)
					body = map[string]string{"version": ver}
				case strings.Contains(rt.Path, "/hosts/"):
					hs, _, err := h.Hosts.Create(t.Context(), target, "target", nil, false)
					if err != nil {
						t.Fatal(err)
					}
					target = hs.ID
				}
				path := pathWith(rt.Path, target)
				before := auditRows(t, h, tokens["viewer"], "?action="+rt.Action).Total
				var resp *hubtest.Response
				if rt.Path == "/v1/admin/billing/mode" {
					resp = withStepUp(t, h, tok, path, map[string]any{"mode": "charging"})
				} else {
					resp = c.As(tok).Do(rt.Method, path, body)
				}
				after := auditRows(t, h, tokens["viewer"], "?action="+rt.Action).Total
				permitted := false
				for _, r := range rt.Allowed {
					permitted = permitted || string(r) == role
				}
				switch {
				case permitted && resp.Status < 400:
					allowed++
					if after != before+1 {
						t.Errorf("%s %s as %s: audit rows %d → %d, want one more", rt.Method, path, role, before, after)
					}
				case permitted:
					t.Errorf("%s %s as %s: %d %s, want success", rt.Method, path, role, resp.Status, resp.Body)
				default:
					resp.Want(t, 403, "forbidden")
					if after != before {
						t.Errorf("%s %s as %s refused but audit rows %d → %d", rt.Method, path, role, before, after)
					}
				}
			}
		}
		if allowed == 0 {
			t.Fatal("no admin write was exercised")
		}
		// A write that fails (missing user) leaves no row either.
		before := auditRows(t, h, tokens["viewer"], "").Total
		c.As(tokens["owner"]).Do("POST", "/v1/admin/users/00000000-0000-4000-8000-000000000000/suspend", nil).Want(t, 404, "not_found")
		if after := auditRows(t, h, tokens["viewer"], "").Total; after != before {
			t.Errorf("failed write: audit rows %d → %d, want unchanged", before, after)
		}
		battery.Report(t, "T42", "%d permitted admin writes (every write route × 4 roles) → exactly 1 audit row each; every refused one 403 with 0 rows; a failing write (404) → 0 rows (%s)", allowed, mode)
	})
}

// withStepUp posts body to path with a fresh step-up token of the admin
// signed in with tok (when the step-up itself succeeds).
func withStepUp(t *testing.T, h *hubtest.Hub, tok, path string, body any) *hubtest.Response {
	var su struct {
		Token string `json:"step_up_token"`
	}
	h.Client(t).As(tok).Do("POST", "/v1/admin/auth/step-up", map[string]string{"password": hubtest.Password}).
		Want(t, 200, "").JSON(t, &su)
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", h.URL+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("X-Step-Up-Token", su.Token)
	return h.Client(t).Send(req)
}

// versionSeq makes each published test version unique.
var versionSeq atomic.Int64

// adminWriteBodies are valid bodies for the admin writes that need one.
var adminWriteBodies = map[string]any{
	"/v1/admin/users/{id}/balance/adjust": map[string]any{"tokens": 5, "reason": "role test"},
	"/v1/admin/recharges/{id}/refund":     map[string]any{"reason": "role test"},
	"/v1/admin/pricing-rules":             map[string]any{"code": "control.role_test.per_call", "token_amount": 0.5},
	"/v1/admin/pricing-rules/{id}":        map[string]any{"token_amount": 1.5},
}

func pathWith(pattern, id string) string {
	out := []byte{}
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '{' {
			for pattern[i] != '}' {
				i++
			}
			out = append(out, id...)
			continue
		}
		out = append(out, pattern[i])
	}
	return string(out)
}

func TestAdminUserListPaging(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		tok, _ := h.Admin(t, "viewer")
		for range 5 {
			h.Register(t)
		}
		var page struct {
			Items                []struct{ Email string } `json:"items"`
			Total, Limit, Offset int
		}
		c.As(tok).Do("GET", "/v1/admin/users?limit=2&offset=1", nil).Want(t, 200, "").JSON(t, &page)
		if page.Total != 5 || len(page.Items) != 2 || page.Limit != 2 || page.Offset != 1 {
			t.Errorf("page = %+v, want total 5, 2 items, limit 2, offset 1", page)
		}
		c.As(tok).Do("GET", "/v1/admin/users", nil).Want(t, 200, "").JSON(t, &page)
		if page.Limit != 50 || len(page.Items) != 5 {
			t.Errorf("default page = limit %d with %d items, want limit 50 with 5", page.Limit, len(page.Items))
		}
		c.As(tok).Do("GET", "/v1/admin/users?q="+page.Items[0].Email[:12], nil).Want(t, 200, "").JSON(t, &page)
		if page.Total != 1 {
			t.Errorf("q search total = %d, want 1", page.Total)
		}
		c.As(tok).Do("GET", "/v1/admin/users?status=suspended", nil).Want(t, 200, "").JSON(t, &page)
		if page.Total != 0 {
			t.Errorf("suspended total = %d, want 0", page.Total)
		}
		for _, q := range []string{"limit=201", "limit=0", "offset=-1", "offset=100001", "limit=abc", "status=gone"} {
			c.As(tok).Do("GET", "/v1/admin/users?"+q, nil).Want(t, 400, "invalid_query")
		}
		c.As(tok).Do("GET", "/v1/admin/users/not-a-uuid", nil).Want(t, 400, "invalid_id")
		c.As(tok).Do("GET", fmt.Sprintf("/v1/admin/users/%s", "00000000-0000-4000-8000-000000000000"), nil).Want(t, 404, "not_found")
	})
}

func TestAdminLogin(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_ADMIN_USERNAME", "root"), hubtest.WithEnv("HOSTGATE_ADMIN_PASSWORD", "bootstrap secret"))
	c := h.Client(t)
	var out struct {
		AccessToken string `json:"access_token"`
		AccessTTL   int    `json:"access_ttl_s"`
		Admin       struct{ Username, Role string }
	}
	resp := c.Do("POST", "/v1/admin/auth/login", map[string]string{"username": "root", "password": "bootstrap secret"}).Want(t, 200, "")
	resp.JSON(t, &out)
	if out.AccessTTL != 3600 || out.Admin.Role != "owner" || out.Admin.Username != "root" {
		t.Errorf("admin login = %+v, want a one-hour owner token for root", out)
	}
	if got := resp.Header.Get("Set-Cookie"); len(got) < 12 || got[:12] != "gw_admin_at=" {
		t.Errorf("Set-Cookie = %q, want gw_admin_at", got)
	}
	c.Do("POST", "/v1/admin/auth/login", map[string]string{"username": "root", "password": "wrong"}).Want(t, 401, "invalid_credentials")
	c.Do("GET", "/v1/admin/users", nil).Want(t, 401, "unauthorized")
	u := h.Register(t)
	c.As(u.AccessToken).Do("GET", "/v1/admin/users", nil).Want(t, 401, "invalid_token")
}
