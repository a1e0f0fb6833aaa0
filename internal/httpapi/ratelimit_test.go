package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
)

// rateWindow is the limits' window in the tests that count: long enough
// for a test's requests to fit in one however slow the machine, and
// chosen so that the package's run starts early in one (windows are whole
// multiples of their length since the epoch), so no test waits for a
// fresh window. TestRateLimitWindowEnds sees a short one end.
var rateWindow = earlyWindow(time.Now())

// earlyWindow is the longest length from 30 to 60 minutes (the most
// HOSTGATE_RATE_WINDOW takes) whose current window has at least 25
// minutes left at now; among 31 lengths one always has.
func earlyWindow(now time.Time) time.Duration {
	for w := time.Hour; w >= 30*time.Minute; w -= time.Minute {
		if windowEnd(now, w).Sub(now) >= 25*time.Minute {
			return w
		}
	}
	panic("no window length from 30 to 60 minutes has 25 minutes left")
}

// windowEnd is when the window of length w holding now ends: windows are
// whole multiples of w since the Unix epoch, as coord.Limiter counts them.
func windowEnd(now time.Time, w time.Duration) time.Time {
	return time.Unix(0, (now.UnixNano()/int64(w)+1)*int64(w))
}

// limitedHub starts a hub whose abuse limits are the given HOSTGATE_RATE_*
// values, counted in rateWindow, that believes X-Forwarded-For from
// loopback, so a test can speak from many addresses.
func limitedHub(t *testing.T, mode hubtest.Mode, limits map[string]string) *hubtest.Hub {
	t.Helper()
	return limitedHubWindow(t, mode, rateWindow, limits)
}

func limitedHubWindow(t *testing.T, mode hubtest.Mode, window time.Duration, limits map[string]string) *hubtest.Hub {
	t.Helper()
	opts := []hubtest.Option{hubtest.WithEnv("HOSTGATE_RATE_WINDOW", window.String()),
		hubtest.WithEnv("HOSTGATE_TRUSTED_PROXIES", "127.0.0.0/8"), hubtest.WithEnv("HOSTGATE_PAYMENT_DUMMY", "1")}
	for k, v := range limits {
		opts = append(opts, hubtest.WithEnv(k, v))
	}
	return hubtest.Start(t, mode, opts...)
}

// freshWindow is the end of the current rate window, which leaves the
// test's requests minutes to be counted in it.
func freshWindow(t *testing.T) time.Time {
	t.Helper()
	end := windowEnd(time.Now(), rateWindow)
	if time.Until(end) < 3*time.Minute {
		t.Fatalf("the package has run for %v: the rate window ends too soon", rateWindow)
	}
	return end
}

// from sends a JSON request as the client at addr (X-Forwarded-For).
func from(t *testing.T, h *hubtest.Hub, addr, token, method, path string, body any) *hubtest.Response {
	t.Helper()
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, h.URL+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", addr)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return h.Client(t).Send(req)
}

// wantLimited checks the refusal's shape: 429 rate_limited, exactly
// {error, message}, and a Retry-After of at most the window that points
// at the window's end.
func wantLimited(t *testing.T, r *hubtest.Response, windowEnd time.Time) {
	t.Helper()
	r.Want(t, http.StatusTooManyRequests, "rate_limited")
	var body map[string]any
	r.JSON(t, &body)
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"error", "message"}) {
		t.Errorf("429 body has %v, want error and message only", keys)
	}
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || secs < 1 || time.Duration(secs)*time.Second > rateWindow {
		t.Fatalf("Retry-After %q, want 1..%d seconds", r.Header.Get("Retry-After"), int(rateWindow/time.Second))
	}
	if left := time.Until(windowEnd); time.Duration(secs)*time.Second < left-5*time.Second || time.Duration(secs)*time.Second > left+2*time.Second {
		t.Errorf("Retry-After %d s, but the window ends in %v", secs, left)
	}
}

// TestLoginRateLimits: sign-ins are counted per client address and per
// account; past either limit the answer is 429 with Retry-After and no
// password is checked; an unknown email and a wrong password answer
// alike.
func TestLoginRateLimits(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := limitedHub(t, mode, map[string]string{"HOSTGATE_RATE_LOGIN": "3/2"})
		u := h.Register(t)
		wrong := map[string]string{"email": u.User.Email, "password": "not the password at all"}
		end := freshWindow(t)

		// Per account: two attempts on the account, from two addresses,
		// then refused from any address; seven refusals, past the
		// lockout's five failures, check no password.
		from(t, h, "198.51.100.1", "", "POST", "/v1/public/auth/login", wrong).Want(t, 401, "invalid_credentials")
		from(t, h, "198.51.100.2", "", "POST", "/v1/public/auth/login", wrong).Want(t, 401, "invalid_credentials")
		for i := range 7 {
			wantLimited(t, from(t, h, "198.51.100."+strconv.Itoa(10+i), "", "POST", "/v1/public/auth/login", wrong), end)
		}

		// Per address: three attempts from one address on other
		// accounts, then refused there but not from another address.
		unknown := map[string]string{"email": hubtest.UniqueEmail(), "password": "not the password at all"}
		a := from(t, h, "203.0.113.7", "", "POST", "/v1/public/auth/login", unknown).Want(t, 401, "invalid_credentials")
		b := from(t, h, "203.0.113.7", "", "POST", "/v1/public/auth/login",
			map[string]string{"email": h.Register(t).User.Email, "password": "not the password at all"}).Want(t, 401, "invalid_credentials")
		if !bytes.Equal(a.Body, b.Body) {
			t.Errorf("an unknown email answers %s, a wrong password %s: they must not differ", a.Body, b.Body)
		}
		from(t, h, "203.0.113.7", "", "POST", "/v1/public/auth/login",
			map[string]string{"email": hubtest.UniqueEmail(), "password": "x"}).Want(t, 401, "invalid_credentials")
		wantLimited(t, from(t, h, "203.0.113.7", "", "POST", "/v1/public/auth/login",
			map[string]string{"email": hubtest.UniqueEmail(), "password": "x"}), end)
		from(t, h, "203.0.113.8", "", "POST", "/v1/public/auth/login",
			map[string]string{"email": hubtest.UniqueEmail(), "password": "x"}).Want(t, 401, "invalid_credentials")

		// The account's own password is refused too, for now: no
		// password is checked past the limit.
		wantLimited(t, from(t, h, "198.51.100.99", "", "POST", "/v1/public/auth/login",
			map[string]string{"email": u.User.Email, "password": hubtest.Password}), end)
	})
}

// TestRateLimitsSharedAcrossInstances: two hubs on one database and Redis
// count one address's registrations together.
func TestRateLimitsSharedAcrossInstances(t *testing.T) {
	t.Parallel()
	h1 := limitedHub(t, hubtest.Scaled, map[string]string{"HOSTGATE_RATE_REGISTER": "2/2"})
	h2 := h1.StartSibling(t)
	end := freshWindow(t)
	reg := func(h *hubtest.Hub, email string) *hubtest.Response {
		return from(t, h, "192.0.2.44", "", "POST", "/v1/public/auth/register", map[string]string{"email": email, "password": hubtest.Password})
	}
	reg(h1, hubtest.UniqueEmail()).Want(t, 200, "")
	reg(h2, hubtest.UniqueEmail()).Want(t, 200, "")
	refused := hubtest.UniqueEmail()
	wantLimited(t, reg(h1, refused), end)
	wantLimited(t, reg(h2, refused), end)
	// Nothing was created: the refused email signs in nowhere, and
	// registers from another address.
	from(t, h2, "192.0.2.45", "", "POST", "/v1/public/auth/login", map[string]string{"email": refused, "password": hubtest.Password}).
		Want(t, 401, "invalid_credentials")
	from(t, h2, "192.0.2.45", "", "POST", "/v1/public/auth/register", map[string]string{"email": refused, "password": hubtest.Password}).
		Want(t, 200, "")
	// The account limit is shared too: the same email, from new
	// addresses, twice more (email_taken, counted), then refused.
	from(t, h1, "192.0.2.46", "", "POST", "/v1/public/auth/register", map[string]string{"email": refused, "password": hubtest.Password}).
		Want(t, 409, "email_taken")
	wantLimited(t, from(t, h2, "192.0.2.47", "", "POST", "/v1/public/auth/register",
		map[string]string{"email": refused, "password": hubtest.Password}), end)
}

// TestRateLimitedRoutes: every limited route answers 429 with Retry-After
// past its limit, and the refused request changes nothing: no token
// refreshed, no ticket issued, no order paid.
func TestRateLimitedRoutes(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := limitedHub(t, mode, map[string]string{"HOSTGATE_RATE_REFRESH": "1", "HOSTGATE_RATE_TICKET": "2/1",
			"HOSTGATE_RATE_NOTIFY": "1", "HOSTGATE_RATE_CHECKOUT": "1", "HOSTGATE_RATE_LOGIN": "2/1"})
		u := h.Register(t)
		owner, _ := h.Admin(t, "owner")
		var o order
		from(t, h, "192.0.2.1", u.AccessToken, "POST", "/v1/user/billing/recharge", map[string]any{"amount_cny": 1}).Want(t, 200, "").JSON(t, &o)
		var o2 order
		from(t, h, "192.0.2.1", u.AccessToken, "POST", "/v1/user/billing/recharge", map[string]any{"amount_cny": 2}).Want(t, 200, "").JSON(t, &o2)
		end := freshWindow(t)

		// Refresh: per address; the refused token still works afterwards.
		var a hubtest.Auth
		from(t, h, "192.0.2.2", "", "POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": u.RefreshToken}).Want(t, 200, "").JSON(t, &a)
		wantLimited(t, from(t, h, "192.0.2.2", "", "POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": a.RefreshToken}), end)
		from(t, h, "192.0.2.3", "", "POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": a.RefreshToken}).Want(t, 200, "")

		// Admin sign-in is counted apart from users' (per account here).
		admName := "adm-limit"
		if _, err := h.Admins.Create(t.Context(), admName, hubtest.Password, "viewer"); err != nil {
			t.Fatal(err)
		}
		var adm hubtest.Auth
		from(t, h, "192.0.2.4", "", "POST", "/v1/admin/auth/login", map[string]string{"username": admName, "password": hubtest.Password}).
			Want(t, 200, "").JSON(t, &adm)
		wantLimited(t, from(t, h, "192.0.2.5", "", "POST", "/v1/admin/auth/login",
			map[string]string{"username": admName, "password": hubtest.Password}), end)
		// Admin refresh: per address, apart from users' refreshes.
		from(t, h, "192.0.2.2", "", "POST", "/v1/admin/auth/refresh", map[string]string{"refresh_token": adm.RefreshToken}).
			Want(t, 200, "").JSON(t, &adm)
		wantLimited(t, from(t, h, "192.0.2.2", "", "POST", "/v1/admin/auth/refresh", map[string]string{"refresh_token": adm.RefreshToken}), end)

		// Terminal tickets: per user (the host need not be online to be
		// counted: the limit comes first), and apart per admin.
		hostPath := "/v1/user/hosts/00000000-0000-4000-8000-000000000001/terminal/ticket"
		from(t, h, "192.0.2.7", u.AccessToken, "POST", hostPath, nil).Want(t, 404, "not_found")
		wantLimited(t, from(t, h, "192.0.2.8", u.AccessToken, "POST", hostPath, nil), end)
		adminPath := "/v1/admin/hosts/00000000-0000-4000-8000-000000000001/terminal/ticket"
		from(t, h, "192.0.2.9", owner, "POST", adminPath, nil).Want(t, 404, "not_found")
		wantLimited(t, from(t, h, "192.0.2.10", owner, "POST", adminPath, nil), end)

		// Payment notifications, per address: the refused one pays nothing.
		notify := "/v1/public/webhooks/payment/dummy"
		from(t, h, "192.0.2.11", "", "POST", notify, map[string]any{"order_no": o.OrderNo, "amount_cny": 1}).Want(t, 200, "")
		wantLimited(t, from(t, h, "192.0.2.11", "", "POST", notify, map[string]any{"order_no": o2.OrderNo, "amount_cny": 2}), end)

		// The dummy checkout, per address: the refused payment pays nothing.
		checkout := "/v1/public/payments/dummy/" + o2.OrderNo
		from(t, h, "192.0.2.12", "", "GET", checkout, nil).Want(t, 200, "")
		wantLimited(t, from(t, h, "192.0.2.12", "", "POST", checkout, nil), end)
		var list struct {
			Items []struct {
				OrderNo string `json:"order_no"`
				Status  string `json:"status"`
			} `json:"items"`
		}
		from(t, h, "192.0.2.13", u.AccessToken, "GET", "/v1/user/billing/recharges", nil).Want(t, 200, "").JSON(t, &list)
		if len(list.Items) != 2 {
			t.Fatalf("%d orders, want 2", len(list.Items))
		}
		for _, it := range list.Items {
			if want := map[string]string{o.OrderNo: "paid", o2.OrderNo: "pending"}[it.OrderNo]; it.Status != want {
				t.Errorf("order %s is %s, want %s", it.OrderNo, it.Status, want)
			}
		}
	})
}

// TestRateLimitWindowEnds: the counts start again when the window ends,
// and the attempts refused in it were never password checks: one failure
// and six refusals (past the lockout's five failures) leave the account
// unlocked, and its password then signs in.
func TestRateLimitWindowEnds(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		const window = 4 * time.Second
		h := limitedHubWindow(t, mode, window, map[string]string{"HOSTGATE_RATE_LOGIN": "1000/1"})
		windowOf := func() int64 { return time.Now().UnixNano() / int64(window) }
		for try := 0; ; try++ {
			if try == 5 {
				t.Fatal("no window held seven sign-ins: the machine is too slow for this test")
			}
			u := h.Register(t)
			wrong := map[string]string{"email": u.User.Email, "password": "not the password at all"}
			n := windowOf()
			first := from(t, h, "198.51.100.1", "", "POST", "/v1/public/auth/login", wrong)
			var refused []*hubtest.Response
			for range 6 {
				refused = append(refused, from(t, h, "198.51.100.1", "", "POST", "/v1/public/auth/login", wrong))
			}
			if windowOf() != n {
				continue // the window ended among them: try again in the next one
			}
			first.Want(t, 401, "invalid_credentials")
			for _, r := range refused {
				r.Want(t, 429, "rate_limited")
			}
			eventually.True(t, 2*window, "the rate window to end", func() bool { return windowOf() != n })
			from(t, h, "198.51.100.1", "", "POST", "/v1/public/auth/login",
				map[string]string{"email": u.User.Email, "password": hubtest.Password}).Want(t, 200, "")
			return
		}
	})
}

func TestEarlyWindowLeavesTime(t *testing.T) {
	start := time.Date(2026, 11, 27, 23, 0, 0, 0, time.UTC)
	for m := range 3 * 24 * 60 * 6 {
		now := start.Add(time.Duration(m)*10*time.Second + 3*time.Second)
		w := earlyWindow(now)
		if left := windowEnd(now, w).Sub(now); left < 25*time.Minute || w < 30*time.Minute || w > time.Hour {
			t.Fatalf("at %v: window %v leaves %v", now, w, left)
		}
	}
}
