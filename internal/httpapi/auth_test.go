package httpapi_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"hostgate/internal/battery"
	"hostgate/internal/hubtest"
)

func TestRegisterLoginMe(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		email := "  Mixed.Case+" + hubtest.UniqueEmail()
		var reg hubtest.Auth
		resp := c.Do("POST", "/v1/public/auth/register", map[string]string{"email": email, "password": hubtest.Password}).Want(t, 200, "")
		resp.JSON(t, &reg)
		if want := strings.ToLower(strings.TrimSpace(email)); reg.User.Email != want {
			t.Errorf("email = %q, want normalised %q", reg.User.Email, want)
		}
		if reg.AccessTTL != 900 || reg.RefreshToken == "" || reg.User.Status != "active" {
			t.Errorf("register answer = %+v, want 900 s access, a refresh token, active", reg)
		}
		cookie := resp.Header.Get("Set-Cookie")
		for _, want := range []string{"gw_at=", "HttpOnly", "SameSite=Strict"} {
			if !strings.Contains(cookie, want) {
				t.Errorf("Set-Cookie %q lacks %q", cookie, want)
			}
		}
		if strings.Contains(cookie, "Secure") {
			t.Errorf("Set-Cookie %q is Secure over plain HTTP", cookie)
		}

		// The same address in another case is the same account.
		c.Do("POST", "/v1/public/auth/register", map[string]string{"email": strings.ToUpper(reg.User.Email), "password": hubtest.Password}).Want(t, 409, "email_taken")

		var login hubtest.Auth
		c.Do("POST", "/v1/public/auth/login", map[string]string{"email": reg.User.Email, "password": hubtest.Password}).Want(t, 200, "").JSON(t, &login)
		var me hubtest.Auth
		c.As(login.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 200, "").JSON(t, &me.User)
		if me.User.ID != reg.User.ID {
			t.Errorf("me id = %q, want %q", me.User.ID, reg.User.ID)
		}

		// The cookie alone authenticates too.
		req, _ := http.NewRequest("GET", h.URL+"/v1/user/me", nil)
		req.AddCookie(&http.Cookie{Name: "gw_at", Value: login.AccessToken})
		c.Send(req).Want(t, 200, "")

		c.As(login.AccessToken).Do("PUT", "/v1/user/me", map[string]string{"display_name": "Ada"}).Want(t, 200, "").JSON(t, &me.User)
		if me.User.DisplayName != "Ada" {
			t.Errorf("display_name = %q, want Ada", me.User.DisplayName)
		}
		c.As(login.AccessToken).Do("PUT", "/v1/user/me", map[string]string{"display_name": strings.Repeat("x", 65)}).Want(t, 400, "invalid_name")
	})
}

func TestRegisterValidation(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	c := h.Client(t)
	tests := []struct {
		name, email, password, code string
	}{
		{"bad email", "not-an-email", hubtest.Password, "invalid_email"},
		{"display name in email", "Ada <ada@example.com>", hubtest.Password, "invalid_email"},
		{"short password", hubtest.UniqueEmail(), "1234567", "weak_password"},
		{"common password", hubtest.UniqueEmail(), "password123", "weak_password"},
		{"too long password", hubtest.UniqueEmail(), strings.Repeat("a", 1025), "weak_password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.Do("POST", "/v1/public/auth/register", map[string]string{"email": tt.email, "password": tt.password}).Want(t, 400, tt.code)
		})
	}
	// Exactly 8 and 1024 bytes are accepted, and the whole password counts.
	long := strings.Repeat("b", 1023) + "1"
	var a hubtest.Auth
	c.Do("POST", "/v1/public/auth/register", map[string]string{"email": hubtest.UniqueEmail(), "password": long}).Want(t, 200, "").JSON(t, &a)
	c.Do("POST", "/v1/public/auth/login", map[string]string{"email": a.User.Email, "password": strings.Repeat("b", 1023) + "2"}).Want(t, 401, "invalid_credentials")
	c.Do("POST", "/v1/public/auth/login", map[string]string{"email": a.User.Email, "password": long}).Want(t, 200, "")
	c.Do("POST", "/v1/public/auth/register", map[string]string{"email": hubtest.UniqueEmail(), "password": "8chars!!"}).Want(t, 200, "")
}

func TestConcurrentRegistrationsCreateOneAccount(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		email := hubtest.UniqueEmail()
		statuses := make([]int, 20)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() {
				statuses[i] = h.Client(t).Do("POST", "/v1/public/auth/register", map[string]string{"email": email, "password": hubtest.Password}).Status
			})
		}
		wg.Wait()
		count := map[int]int{}
		for _, s := range statuses {
			count[s]++
		}
		if count[200] != 1 || count[409] != 19 {
			t.Fatalf("statuses = %v, want one 200 and nineteen 409", count)
		}
	})
}

func TestLoginFailuresLookAlikeAndLock(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		a := h.Register(t)
		wrong := c.Do("POST", "/v1/public/auth/login", map[string]string{"email": a.User.Email, "password": "wrong password"}).Want(t, 401, "invalid_credentials")
		unknown := c.Do("POST", "/v1/public/auth/login", map[string]string{"email": hubtest.UniqueEmail(), "password": "wrong password"}).Want(t, 401, "invalid_credentials")
		if string(wrong.Body) != string(unknown.Body) {
			t.Errorf("wrong password answers %s but unknown email %s; want identical", wrong.Body, unknown.Body)
		}
		for range 4 {
			c.Do("POST", "/v1/public/auth/login", map[string]string{"email": a.User.Email, "password": "wrong password"}).Want(t, 401, "invalid_credentials")
		}
		// Five failures lock the account, even against the right password.
		c.Do("POST", "/v1/public/auth/login", map[string]string{"email": a.User.Email, "password": hubtest.Password}).Want(t, 423, "account_locked")
		// Unknown emails lock the same way, so a lock reveals nothing.
		ghost := hubtest.UniqueEmail()
		for range 5 {
			c.Do("POST", "/v1/public/auth/login", map[string]string{"email": ghost, "password": "wrong password"}).Want(t, 401, "invalid_credentials")
		}
		c.Do("POST", "/v1/public/auth/login", map[string]string{"email": ghost, "password": "wrong password"}).Want(t, 423, "account_locked")
		battery.Report(t, "T29", "wrong password and unknown email: same 401 body; 5 failures → 6th login 423 account_locked with the right password; an unknown email locks alike (%s)", mode)
	})
}

func TestRefreshRotatesAndReuseEndsSession(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		first := h.Register(t)
		var second hubtest.Auth
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": first.RefreshToken}).Want(t, 200, "").JSON(t, &second)
		if second.RefreshToken == first.RefreshToken || second.AccessToken == "" {
			t.Fatalf("refresh returned the same refresh token or no access token")
		}
		c.As(second.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 200, "")

		// Presenting the rotated token again ends the whole session.
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": first.RefreshToken}).Want(t, 401, "invalid_token")
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": second.RefreshToken}).Want(t, 401, "invalid_token")
		c.As(second.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 401, "invalid_token")
		c.As(first.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 401, "invalid_token")

		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": "never-issued"}).Want(t, 401, "invalid_token")
	})
}

func TestConcurrentRefreshYieldsAtMostOnePair(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		a := h.Register(t)
		var mu sync.Mutex
		var winners []hubtest.Auth
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				r := h.Client(t).Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": a.RefreshToken})
				if r.Status == 200 {
					var got hubtest.Auth
					r.JSON(t, &got)
					mu.Lock()
					winners = append(winners, got)
					mu.Unlock()
				} else if r.Status != 401 {
					t.Errorf("refresh answered %d %s, want 200 or 401", r.Status, r.Body)
				}
			})
		}
		wg.Wait()
		if len(winners) > 1 {
			t.Fatalf("%d refreshes succeeded, want at most one", len(winners))
		}
	})
}

func TestLogoutEndsSession(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		a := h.Register(t)
		other := h.Register(t)
		resp := c.Do("POST", "/v1/public/auth/logout", map[string]string{"refresh_token": a.RefreshToken}).Want(t, 200, "")
		if !strings.Contains(resp.Header.Get("Set-Cookie"), "gw_at=;") {
			t.Errorf("logout Set-Cookie = %q, want the cookie cleared", resp.Header.Get("Set-Cookie"))
		}
		c.As(a.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 401, "invalid_token")
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": a.RefreshToken}).Want(t, 401, "invalid_token")
		// Another session is untouched.
		c.As(other.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 200, "")
	})
}

func TestUserRoutesNeedAUserToken(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	c := h.Client(t)
	adminToken, _ := h.Admin(t, "owner")
	tests := []struct{ name, token, code string }{
		{"none", "", "unauthorized"},
		{"garbage", "abc.def.ghi", "invalid_token"},
		{"admin token", adminToken, "invalid_token"},
		{"huge", strings.Repeat(".", 10000), "invalid_token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.As(tt.token).Do("GET", "/v1/user/me", nil).Want(t, 401, tt.code)
			// Unknown routes under a protected prefix are refused the same way.
			c.As(tt.token).Do("GET", "/v1/user/nothing-here", nil).Want(t, 401, tt.code)
		})
	}
}

func TestCookieSecureBehindTLSProxy(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_TRUSTED_PROXIES", "127.0.0.1/32"))
	body := `{"email":"` + hubtest.UniqueEmail() + `","password":"` + hubtest.Password + `"}`
	req, _ := http.NewRequest("POST", h.URL+"/v1/public/auth/register", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-Proto", "https")
	req.Header.Set("X-Forwarded-For", "198.51.100.7")
	cookie := h.Client(t).Send(req).Want(t, 200, "").Header.Get("Set-Cookie")
	if !strings.Contains(cookie, "; Secure") {
		t.Errorf("Set-Cookie %q behind a TLS proxy lacks Secure", cookie)
	}
}
