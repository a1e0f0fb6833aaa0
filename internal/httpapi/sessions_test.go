package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"hostgate/internal/admin"
	"hostgate/internal/audit"
	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
	"hostgate/internal/paging"
	"hostgate/internal/recent"
)

// refused is a check for eventually.Error: nil once c refuses tok on
// path with 401 invalid_token, else what it answered.
func refused(c *hubtest.Client, tok, path string) func() error {
	return func() error {
		if r := c.As(tok).Do("GET", path, nil); r.Status != 401 || r.Code() != "invalid_token" {
			return fmt.Errorf("GET %s with an ended token: got %d %s, want 401 invalid_token", path, r.Status, r.Body)
		}
		return nil
	}
}

// endedTokens ends three users' sessions through h, one by each cause,
// and returns their old access tokens by cause. Each token was used just
// before, on h and on the sibling when there is one, so both hold it as
// a fact kept for a moment.
func endedTokens(t *testing.T, h *hubtest.Hub, sibling *hubtest.Hub) map[string]string {
	t.Helper()
	c := h.Client(t)
	warm := func(tok string) {
		t.Helper()
		c.As(tok).Do("GET", "/v1/user/me", nil).Want(t, 200, "")
		if sibling != nil {
			sibling.Client(t).As(tok).Do("GET", "/v1/user/me", nil).Want(t, 200, "")
		}
	}
	ended := map[string]string{}

	out := h.Register(t)
	warm(out.AccessToken)
	c.Do("POST", "/v1/public/auth/logout", map[string]string{"refresh_token": out.RefreshToken}).Want(t, 200, "")
	ended["logout"] = out.AccessToken

	sus := h.Register(t)
	warm(sus.AccessToken)
	op, _ := h.Admin(t, "operator")
	c.As(op).Do("POST", "/v1/admin/users/"+sus.User.ID+"/suspend", nil).Want(t, 200, "")
	ended["suspension"] = sus.AccessToken

	pw := h.Register(t)
	warm(pw.AccessToken)
	c.As(pw.AccessToken).Do("POST", "/v1/user/me/password",
		map[string]string{"current_password": hubtest.Password, "new_password": "a brand new passphrase"}).Want(t, 200, "")
	ended["password change"] = pw.AccessToken
	return ended
}

// TestEndedSessionsStayEnded: an access token whose session ended (logout,
// suspension, password change) is refused on the instance that ended it,
// on every other instance, after coordination lost everything, and after
// a restart: the session table is the truth, not coordination.
func TestEndedSessionsStayEnded(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		var b *hubtest.Hub
		if mode == hubtest.Scaled {
			b = h.StartSibling(t)
		}
		live := h.Register(t)
		ended := endedTokens(t, h, b)
		check := func(when string, hubs ...*hubtest.Hub) {
			t.Helper()
			for _, x := range hubs {
				for cause, tok := range ended {
					t.Logf("%s, %s", when, cause)
					x.Client(t).As(tok).Do("GET", "/v1/user/me", nil).Want(t, 401, "invalid_token")
				}
				x.Client(t).As(live.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 200, "")
			}
		}
		check("same instance", h)
		if b != nil {
			// The sibling held each token as live a moment ago; the
			// forget must reach it well before the kept fact expires.
			for cause, tok := range ended {
				t.Logf("sibling, %s", cause)
				eventually.Error(t, recent.TTL/2, "the sibling refuses the ended token", refused(b.Client(t), tok, "/v1/user/me"))
			}
			h.FlushCoordination(t)
			check("coordination flushed", h, b)
		}
		h = h.Restart(t)
		check("after restart", h)
	})
}

// TestChangePassword: the route checks the current password like a login,
// applies registration's rules to the new one, and answers like a login.
func TestChangePassword(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		u := h.Register(t)
		me := c.As(u.AccessToken)
		const next = "a brand new passphrase"

		me.Do("POST", "/v1/user/me/password", map[string]string{"current_password": hubtest.Password, "new_password": "short"}).
			Want(t, 400, "weak_password")
		me.Do("POST", "/v1/user/me/password", map[string]string{"current_password": hubtest.Password, "new_password": u.User.Email}).
			Want(t, 400, "weak_password")
		me.Do("POST", "/v1/user/me/password", map[string]string{"current_password": "not my password", "new_password": next}).
			Want(t, 401, "invalid_credentials")
		// The refusals changed nothing.
		me.Do("GET", "/v1/user/me", nil).Want(t, 200, "")

		resp := me.Do("POST", "/v1/user/me/password", map[string]string{"current_password": hubtest.Password, "new_password": next}).
			Want(t, 200, "")
		var a hubtest.Auth
		resp.JSON(t, &a)
		if a.AccessToken == "" || a.RefreshToken == "" || a.AccessTTL <= 0 || a.User.ID != u.User.ID {
			t.Fatalf("answer = %s, want AuthResp of the same user", resp.Body)
		}
		if !strings.HasPrefix(resp.Header.Get("Set-Cookie"), "gw_at="+a.AccessToken) {
			t.Errorf("Set-Cookie = %q, want the new gw_at", resp.Header.Get("Set-Cookie"))
		}
		c.As(u.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 401, "invalid_token")
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": u.RefreshToken}).Want(t, 401, "invalid_token")
		c.As(a.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 200, "")
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": a.RefreshToken}).Want(t, 200, "")

		login := func(pw string) *hubtest.Response {
			return c.Do("POST", "/v1/public/auth/login", map[string]string{"email": u.User.Email, "password": pw})
		}
		login(hubtest.Password).Want(t, 401, "invalid_credentials")
		login(next).Want(t, 200, "")
	})
}

// TestChangePasswordCountsTowardLockout: wrong current passwords lock the
// account like failed logins do.
func TestChangePasswordCountsTowardLockout(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	c := h.Client(t)
	u := h.Register(t)
	change := func(current string) *hubtest.Response {
		return c.As(u.AccessToken).Do("POST", "/v1/user/me/password",
			map[string]string{"current_password": current, "new_password": "a brand new passphrase"})
	}
	for range 4 {
		change("not my password").Want(t, 401, "invalid_credentials")
	}
	c.Do("POST", "/v1/public/auth/login", map[string]string{"email": u.User.Email, "password": "wrong password"}).Want(t, 401, "invalid_credentials")
	change(hubtest.Password).Want(t, 423, "account_locked")
	c.Do("POST", "/v1/public/auth/login", map[string]string{"email": u.User.Email, "password": hubtest.Password}).Want(t, 423, "account_locked")
}

// TestLockSurvivesRestart: a locked account, a user's or an admin's,
// stays locked, even against the right password, when the hub restarts or
// coordination loses everything.
func TestLockSurvivesRestart(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		u := h.Register(t)
		login := func(c *hubtest.Client, pw string) *hubtest.Response {
			return c.Do("POST", "/v1/public/auth/login", map[string]string{"email": u.User.Email, "password": pw})
		}
		// An admin's lock is kept the same way (its own kind of name).
		const adminName = "locked-admin"
		if _, err := h.Admins.Create(t.Context(), adminName, hubtest.Password, "viewer"); err != nil {
			t.Fatal(err)
		}
		adminLogin := func(c *hubtest.Client, pw string) *hubtest.Response {
			return c.Do("POST", "/v1/admin/auth/login", map[string]string{"username": adminName, "password": pw})
		}
		for range 5 {
			login(c, "wrong password").Want(t, 401, "invalid_credentials")
			adminLogin(c, "wrong password").Want(t, 401, "invalid_credentials")
		}
		login(c, hubtest.Password).Want(t, 423, "account_locked")
		adminLogin(c, hubtest.Password).Want(t, 423, "account_locked")
		if mode == hubtest.Scaled {
			h.FlushCoordination(t)
			login(c, hubtest.Password).Want(t, 423, "account_locked")
			adminLogin(c, hubtest.Password).Want(t, 423, "account_locked")
		}
		h = h.Restart(t)
		login(h.Client(t), hubtest.Password).Want(t, 423, "account_locked")
		adminLogin(h.Client(t), hubtest.Password).Want(t, 423, "account_locked")

		// Failures short of the threshold are kept too.
		v := h.Register(t)
		for range 4 {
			h.Client(t).Do("POST", "/v1/public/auth/login", map[string]string{"email": v.User.Email, "password": "wrong password"}).
				Want(t, 401, "invalid_credentials")
		}
		h = h.Restart(t)
		h.Client(t).Do("POST", "/v1/public/auth/login", map[string]string{"email": v.User.Email, "password": "wrong password"}).
			Want(t, 401, "invalid_credentials")
		h.Client(t).Do("POST", "/v1/public/auth/login", map[string]string{"email": v.User.Email, "password": hubtest.Password}).
			Want(t, 423, "account_locked")
	})
}

// TestDisabledAdminRefused: an admin disabled by another process (the
// `hostgate admin disable` command writes the store) loses its live token
// on every instance within the time a fact is kept, and after a restart;
// enabling it again lets it sign in.
func TestDisabledAdminRefused(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		hubs := []*hubtest.Hub{h}
		if mode == hubtest.Scaled {
			hubs = append(hubs, h.StartSibling(t))
		}
		tok, id := h.Admin(t, "owner")
		other, _ := h.Admin(t, "owner") // so that tok's is not the last owner
		for _, x := range hubs {
			x.Client(t).As(tok).Do("GET", "/v1/admin/users", nil).Want(t, 200, "")
		}
		rec := audit.CLIActor.Entry(audit.ActionAdminDisable, "admin", id)
		if _, err := admin.SetAdminStatus(t.Context(), h.Store().Admins, id, admin.StatusDisabled, time.Now(), rec); err != nil {
			t.Fatal(err)
		}
		for _, x := range hubs {
			eventually.Error(t, recent.TTL+500*time.Millisecond, "the disabled admin's token refused", refused(x.Client(t), tok, "/v1/admin/users"))
			x.Client(t).As(other).Do("GET", "/v1/admin/users", nil).Want(t, 200, "")
		}
		if mode == hubtest.Scaled {
			h.FlushCoordination(t)
			h.Client(t).As(tok).Do("GET", "/v1/admin/users", nil).Want(t, 401, "invalid_token")
		}
		h = h.Restart(t)
		h.Client(t).As(tok).Do("GET", "/v1/admin/users", nil).Want(t, 401, "invalid_token")
		h.Client(t).As(other).Do("GET", "/v1/admin/users", nil).Want(t, 200, "")

		// Enabled again through the service, as the command does: the
		// admin signs in, and both changes are audited.
		a, err := h.Store().Admins.AdminByID(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		h.Client(t).Do("POST", "/v1/admin/auth/login", map[string]string{"username": a.Username, "password": hubtest.Password}).
			Want(t, 401, "invalid_credentials")
		if _, err := h.Admins.SetStatus(t.Context(), audit.CLIActor, strings.ToUpper(a.Username), admin.StatusActive); err != nil {
			t.Fatal(err)
		}
		h.Client(t).Do("POST", "/v1/admin/auth/login", map[string]string{"username": a.Username, "password": hubtest.Password}).
			Want(t, 200, "")
		for _, action := range []string{audit.ActionAdminDisable, audit.ActionAdminEnable} {
			rows, n, err := h.Store().Audit.ListAudit(t.Context(), audit.Filter{Action: action}, paging.Page{Limit: 10})
			if err != nil || n != 1 || rows[0].TargetID != id || rows[0].AdminRole != "cli" {
				t.Errorf("%s audit rows = %+v, %d, %v; want one by the cli on %s", action, rows, n, err, id)
			}
		}
	})
}
