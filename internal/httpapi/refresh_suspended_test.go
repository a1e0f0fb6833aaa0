package httpapi_test

import (
	"testing"

	"hostgate/internal/hubtest"
)

// TestRefreshAfterSuspension: the current refresh token of a suspended
// user is refused with 403 account_suspended, by body or by cookie (which
// is cleared), and nothing is rotated; a reused older token stays 401; after
// a resume the old token still does not work, as the suspension ended its
// session.
func TestRefreshAfterSuspension(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		u := h.Register(t)
		// A second session whose first token is then rotated: the first is an old one.
		var second, rotated hubtest.Auth
		c.Do("POST", "/v1/public/auth/login", map[string]string{"email": u.User.Email, "password": hubtest.Password}).Want(t, 200, "").JSON(t, &second)
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": second.RefreshToken}).Want(t, 200, "").JSON(t, &rotated)

		op, _ := h.Admin(t, "operator")
		c.As(op).Do("POST", "/v1/admin/users/"+u.User.ID+"/suspend", nil).Want(t, 200, "")

		for range 2 { // refused twice alike: the first refusal consumed nothing
			c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": u.RefreshToken}).Want(t, 403, "account_suspended")
		}
		r := browserPost(t, h, "/v1/public/auth/refresh", "{}", rotated.RefreshToken, sameOrigin).Want(t, 403, "account_suspended")
		for name, ck := range setCookies(t, r) {
			if ck.Value != "" || ck.MaxAge >= 0 {
				t.Errorf("cookie %s after a suspended refresh = %q, want it cleared", name, ck.String())
			}
		}
		if cs := setCookies(t, r); cs["gw_rt"] == nil || cs["gw_at"] == nil {
			t.Errorf("suspended cookie refresh set %v, want gw_at and gw_rt cleared", r.Header.Values("Set-Cookie"))
		}
		// An old, already rotated token is a reuse, as before.
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": second.RefreshToken}).Want(t, 401, "invalid_token")

		c.As(op).Do("POST", "/v1/admin/users/"+u.User.ID+"/resume", nil).Want(t, 200, "")
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": u.RefreshToken}).Want(t, 401, "invalid_token")
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": rotated.RefreshToken}).Want(t, 401, "invalid_token")
		c.Do("POST", "/v1/public/auth/login", map[string]string{"email": u.User.Email, "password": hubtest.Password}).Want(t, 200, "")
	})
}
