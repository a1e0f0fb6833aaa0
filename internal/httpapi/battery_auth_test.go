package httpapi_test

// The sign-in entries of the reliability battery (docs/reliability.md,
// T27…T34): password storage and rules, lockout and enumeration, token
// forgery, oversized credentials and refresh rotation.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"hostgate/internal/battery"
	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
	"hostgate/internal/passwords"
)

var phcDefault = regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$([A-Za-z0-9+/]{22})\$([A-Za-z0-9+/]{43})$`)

func storedHash(t *testing.T, h *hubtest.Hub, userID string) string {
	t.Helper()
	var hash string
	if err := rawDB(t, h).QueryRowContext(t.Context(), "SELECT password_hash FROM users WHERE id = '"+userID+"'").Scan(&hash); err != nil {
		t.Fatal(err)
	}
	return hash
}

func login(t *testing.T, h *hubtest.Hub, email, password string) *hubtest.Response {
	t.Helper()
	return h.Client(t).Do("POST", "/v1/public/auth/login", map[string]string{"email": email, "password": password})
}

func register(t *testing.T, h *hubtest.Hub, email, password string) *hubtest.Response {
	t.Helper()
	return h.Client(t).Do("POST", "/v1/public/auth/register", map[string]string{"email": email, "password": password})
}

// TestBatteryPasswordStorage: the stored hash is argon2id with OWASP's
// parameters and a 16-byte salt that differs for equal passwords; a hash
// made with weaker parameters is replaced at the next successful login.
func TestBatteryPasswordStorage(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		a, b := h.Register(t), h.Register(t) // both with hubtest.Password
		ha, hb := storedHash(t, h, a.User.ID), storedHash(t, h, b.User.ID)
		ma, mb := phcDefault.FindStringSubmatch(ha), phcDefault.FindStringSubmatch(hb)
		if ma == nil || mb == nil {
			t.Fatalf("stored hashes %q, %q; want $argon2id$v=19$m=19456,t=2,p=1$<16-byte salt>$<32-byte key>", ha, hb)
		}
		salt, err := base64.RawStdEncoding.DecodeString(ma[1])
		if err != nil || len(salt) != 16 || ma[1] == mb[1] || ha == hb {
			t.Fatalf("salts %q and %q (%d bytes, %v): want 16 bytes, different for equal passwords", ma[1], mb[1], len(salt), err)
		}
		// A hash made with weaker parameters, put in place by hand.
		weak, err := passwords.NewHasher(passwords.Params{Memory: 8 * 1024, Time: 1, Threads: 1}).Hash(t.Context(), hubtest.Password)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rawDB(t, h).ExecContext(t.Context(), "UPDATE users SET password_hash = '"+weak+"' WHERE id = '"+a.User.ID+"'"); err != nil {
			t.Fatal(err)
		}
		login(t, h, a.User.Email, hubtest.Password).Want(t, 200, "")
		var rehashed string
		eventually.True(t, 10*time.Second, "the weak hash replaced", func() bool {
			rehashed = storedHash(t, h, a.User.ID)
			return rehashed != weak
		})
		if phcDefault.FindStringSubmatch(rehashed) == nil {
			t.Fatalf("after login the hash is %q, want the default parameters", rehashed)
		}
		login(t, h, a.User.Email, hubtest.Password).Want(t, 200, "")
		battery.Report(t, "T27", "stored %s…; 16-byte salts differ for equal passwords; m=8192,t=1 hash rehashed to m=19456,t=2,p=1 at login (%s)",
			ha[:len("$argon2id$v=19$m=19456,t=2,p=1$")], mode)
	})
}

// TestBatteryPasswordLengths: 7 bytes and 1,025 bytes are refused (the
// latter before any hashing: it answers faster than one hash), 8, 64 and
// 128 are accepted and verified exactly, a 100-byte password differing
// only after byte 72 is refused, a common password is refused.
func TestBatteryPasswordLengths(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	register(t, h, hubtest.UniqueEmail(), "abcdefg").Want(t, 400, "weak_password")
	start := time.Now()
	register(t, h, hubtest.UniqueEmail(), strings.Repeat("k", 1025)).Want(t, 400, "weak_password")
	tooLong := time.Since(start)
	register(t, h, hubtest.UniqueEmail(), "password123").Want(t, 400, "weak_password")
	register(t, h, hubtest.UniqueEmail(), "Qwerty123").Want(t, 400, "weak_password")
	for _, n := range []int{8, 64, 128} {
		pw := strings.Repeat("z", n-1) + "!"
		email := hubtest.UniqueEmail()
		register(t, h, email, pw).Want(t, 200, "")
		login(t, h, email, pw).Want(t, 200, "")
		login(t, h, email, pw[:n-1]+"?").Want(t, 401, "invalid_credentials")
		if n > 8 {
			login(t, h, email, pw[:n-1]).Want(t, 401, "invalid_credentials")
		}
	}
	long := strings.Repeat("q", 72) + "AAAAAAAAAAAAAAAAAAAAAAAAAAAA" // 100 bytes
	other := strings.Repeat("q", 72) + "BAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	email := hubtest.UniqueEmail()
	register(t, h, email, long).Want(t, 200, "")
	login(t, h, email, other).Want(t, 401, "invalid_credentials")
	start = time.Now()
	login(t, h, email, long).Want(t, 200, "")
	oneHash := time.Since(start)
	if tooLong >= oneHash {
		t.Fatalf("the 1,025-byte registration took %v, a login with one hash %v: want it refused before hashing", tooLong, oneHash)
	}
	battery.Report(t, "T28", "7 → 400, 1,025 → 400 weak_password in %v (a hashed login %v), common → 400; 8/64/128 accepted and verified exactly; 100-byte password differing at byte 73 → 401",
		tooLong.Round(time.Microsecond), oneHash.Round(time.Millisecond))
}

// TestBatteryLoginTiming (CI size of the nightly 200): 25 logins each of
// an unknown email and a wrong password answer the same status and body;
// the medians are reported and held to a generous bound only.
func TestBatteryLoginTiming(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	a := h.Register(t)
	const n = 25
	var unknown, wrong []time.Duration
	var bodies []string
	for i := range 2 * n {
		email := a.User.Email
		if i%2 == 0 {
			email = hubtest.UniqueEmail() // a fresh one each time: no lock
		}
		start := time.Now()
		r := login(t, h, email, "wrong password")
		d := time.Since(start)
		if r.Status != 401 {
			t.Fatalf("login %d answered %d %s", i, r.Status, r.Body)
		}
		bodies = append(bodies, string(r.Body))
		if i%2 == 0 {
			unknown = append(unknown, d)
		} else {
			wrong = append(wrong, d)
			if i%8 == 7 { // reset the real account's counter before it locks
				login(t, h, a.User.Email, hubtest.Password).Want(t, 200, "")
			}
		}
	}
	if distinct := slices.Compact(slices.Sorted(slices.Values(bodies))); len(distinct) != 1 {
		t.Fatalf("bodies differ: %q", distinct)
	}
	mu, mw := median(unknown), median(wrong)
	delta := float64(mu-mw) / float64(mw)
	if delta > 1 || delta < -0.5 {
		t.Fatalf("median unknown email %v, wrong password %v: Δ %.0f%%, beyond even a loaded machine's noise", mu, mw, 100*delta)
	}
	battery.Report(t, "T30", "%d × unknown email vs %d × wrong password (CI size of 200): same 401 body; median %v vs %v, Δmedian %+.1f%%",
		n, n, mu.Round(time.Microsecond), mw.Round(time.Microsecond), 100*delta)
}

// runtimeMem is the process's allocation counter.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

func median(d []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(d))
	return s[len(s)/2]
}

// forge signs claims with key under header fields.
func forge(t *testing.T, method jwt.SigningMethod, key any, claims jwt.MapClaims, header map[string]any) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	for k, v := range header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// claimsOf decodes a token's payload without checking it.
func claimsOf(t *testing.T, token string) jwt.MapClaims {
	t.Helper()
	parts := strings.Split(token, ".")
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	c := jwt.MapClaims{}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func with(c jwt.MapClaims, k string, v any) jwt.MapClaims {
	d := jwt.MapClaims{}
	for kk, vv := range c {
		d[kk] = vv
	}
	if v == nil {
		delete(d, k)
	} else {
		d[k] = v
	}
	return d
}

// TestBatteryJWTForgery: forged, expired, misdirected and wrong-kind
// tokens are refused on the real routes with one identical 401 body; a
// token expired within the leeway (5 s, internal/keyring) is accepted.
func TestBatteryJWTForgery(t *testing.T) {
	key := make([]byte, 32)
	for i := range key {
		key[i] = byte(i * 7)
	}
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_SIGNING_KEY", base64.StdEncoding.EncodeToString(key)))
	u := h.Register(t)
	good := claimsOf(t, u.AccessToken)
	// The battery's base is accepted: the test's key is the hub's.
	h.Client(t).As(forge(t, jwt.SigningMethodHS256, key, good, nil)).Do("GET", "/v1/user/me", nil).Want(t, 200, "")

	attacker := []byte("attacker-key-attacker-key-attack")
	now := time.Now().Unix()
	parts := strings.Split(u.AccessToken, ".")
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
	cases := []struct{ name, token, path string }{
		{"alg none", none, "/v1/user/me"},
		{"alg none with the real signature", none + parts[2], "/v1/user/me"},
		{"RS256 header, HMAC with the key", forge(t, jwt.SigningMethodHS256, key, good, map[string]any{"alg": "RS256"}), "/v1/user/me"},
		{"HS256 with another key", forge(t, jwt.SigningMethodHS256, attacker, good, nil), "/v1/user/me"},
		{"unknown kid", forge(t, jwt.SigningMethodHS256, attacker, good, map[string]any{"kid": "k-unknown"}), "/v1/user/me"},
		{"kid path", forge(t, jwt.SigningMethodHS256, attacker, good, map[string]any{"kid": "../../../../dev/null"}), "/v1/user/me"},
		{"kid SQL", forge(t, jwt.SigningMethodHS256, attacker, good, map[string]any{"kid": "x' UNION SELECT 'k"}), "/v1/user/me"},
		{"jku", forge(t, jwt.SigningMethodHS256, attacker, good, map[string]any{"jku": "https://attacker.example/jwks.json"}), "/v1/user/me"},
		{"x5u", forge(t, jwt.SigningMethodHS256, attacker, good, map[string]any{"x5u": "https://attacker.example/cert.pem"}), "/v1/user/me"},
		{"jwk", forge(t, jwt.SigningMethodHS256, attacker, good, map[string]any{"jwk": map[string]any{"kty": "oct", "k": base64.RawURLEncoding.EncodeToString(attacker)}}), "/v1/user/me"},
		{"expired by 31 s", forge(t, jwt.SigningMethodHS256, key, with(good, "exp", now-31), nil), "/v1/user/me"},
		{"expired by 6 s (leeway 5 s)", forge(t, jwt.SigningMethodHS256, key, with(good, "exp", now-6), nil), "/v1/user/me"},
		{"no exp", forge(t, jwt.SigningMethodHS256, key, with(good, "exp", nil), nil), "/v1/user/me"},
		{"user token on an admin route", u.AccessToken, "/v1/admin/billing/mode"},
		{"agent token on a user route", forge(t, jwt.SigningMethodHS256, key, with(good, "aud", []string{"agent"}), nil), "/v1/user/me"},
		{"admin-audience token on a user route", forge(t, jwt.SigningMethodHS256, key, with(good, "aud", []string{"admin"}), nil), "/v1/user/me"},
		{"refresh token as bearer", u.RefreshToken, "/v1/user/me"},
	}
	// One body per route family: the admin routes name admin tokens.
	bodies := map[string]string{}
	for _, c := range cases {
		r := h.Client(t).As(c.token).Do("GET", c.path, nil)
		if r.Status != 401 || r.Code() != "invalid_token" {
			t.Errorf("%s: %d %s, want 401 invalid_token", c.name, r.Status, r.Body)
			continue
		}
		family := strings.Split(c.path, "/")[2]
		if bodies[family] == "" {
			bodies[family] = string(r.Body)
		} else if string(r.Body) != bodies[family] {
			t.Errorf("%s: body %s, want the same as the others on /v1/%s: %s", c.name, r.Body, family, bodies[family])
		}
	}
	first := strings.TrimSpace(bodies["user"])
	// Within the leeway: accepted (exp 2 s ago; leeway 5 s, so 3 s of margin).
	h.Client(t).As(forge(t, jwt.SigningMethodHS256, key, with(good, "exp", time.Now().Unix()-2), nil)).Do("GET", "/v1/user/me", nil).Want(t, 200, "")
	battery.Report(t, "T32", "%d forged/expired/misdirected tokens → 401 invalid_token, one identical body per route family (user: %s); expired 2 s ago (inside the 5 s leeway) → 200", len(cases), first)
}

// TestBatteryOversizedBearer: a bearer credential of 1 MiB is refused by
// the header limit (431) before any parsing; one of 12 KiB (under the 16
// KiB header limit) is refused 401 quickly with little allocated.
func TestBatteryOversizedBearer(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	send := func(value string) (*hubtest.Response, time.Duration) {
		req, _ := http.NewRequestWithContext(context.Background(), "GET", h.URL+"/v1/user/me", nil)
		req.Header.Set("Authorization", value)
		start := time.Now()
		r := h.Client(t).Send(req)
		return r, time.Since(start)
	}
	send("Bearer x") // a warm connection for the timings
	huge, hugeTook := send("Bearer " + strings.Repeat(".", 1<<20))
	if huge.Status != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("1 MiB bearer: %d %s, want 431", huge.Status, huge.Body)
	}
	big := "Bearer " + strings.Repeat(".", 12<<10)
	var ms1, ms2 runtimeMem
	ms1.read()
	r, took := send(big)
	ms2.read()
	if r.Status != 401 || r.Code() != "invalid_token" {
		t.Fatalf("12 KiB bearer: %d %s, want 401 invalid_token", r.Status, r.Body)
	}
	alloc := ms2.total - ms1.total
	if alloc > 1<<20 || took > time.Second {
		t.Fatalf("12 KiB bearer: %d bytes allocated, %v; want < 1 MiB and quick", alloc, took)
	}
	battery.Report(t, "T33", "Bearer + 1 MiB of '.' → 431 before parsing in %v (header limit 16 KiB, hub.go); Bearer + 12 KiB → 401 invalid_token in %v, %d KiB allocated (client and server)",
		hugeTook.Round(time.Microsecond), took.Round(time.Microsecond), alloc>>10)
}

// TestBatteryRefreshReuse: R1 → (A2, R2); R1 again → 401 and the session
// (R2, A2) ends; concurrent refreshes of one token never leave two live
// token families. There is no grace period (docs/accounts.md, "Sessions
// and rotation").
func TestBatteryRefreshReuse(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		first := h.Register(t)
		var second hubtest.Auth
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": first.RefreshToken}).Want(t, 200, "").JSON(t, &second)
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": first.RefreshToken}).Want(t, 401, "invalid_token")
		c.Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": second.RefreshToken}).Want(t, 401, "invalid_token")
		c.As(second.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 401, "invalid_token")
		login(t, h, first.User.Email, hubtest.Password).Want(t, 200, "")

		const rounds, racers = 5, 10
		maxLive := 0
		for range rounds {
			a := h.Register(t)
			var mu sync.Mutex
			var winners []hubtest.Auth
			var wg sync.WaitGroup
			for range racers {
				wg.Go(func() {
					r := h.Client(t).Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": a.RefreshToken})
					if r.Status == 200 {
						var w hubtest.Auth
						r.JSON(t, &w)
						mu.Lock()
						winners = append(winners, w)
						mu.Unlock()
					} else if r.Status != 401 {
						t.Errorf("refresh answered %d %s", r.Status, r.Body)
					}
				})
			}
			wg.Wait()
			live := 0
			for _, w := range winners {
				if h.Client(t).Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": w.RefreshToken}).Status == 200 {
					live++
				}
			}
			if len(winners) > 1 || live > 1 {
				t.Fatalf("%d concurrent refreshes: %d succeeded, %d families live; want at most one", racers, len(winners), live)
			}
			maxLive = max(maxLive, live)
		}
		battery.Report(t, "T34", "R1 reused after rotation → 401, R2 and A2 revoked, new login needed; %d rounds × %d concurrent refreshes of one token → ≤1 success, ≤%d live family (no grace period) (%s)",
			rounds, racers, maxLive, mode)
	})
}
