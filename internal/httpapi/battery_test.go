package httpapi_test

// Battery entries T35…T48 (docs/reliability.md) that no older test covered
// whole: revocation timings across instances, route coverage without
// credentials, the admin role matrix on reads, the WebSocket Origin rule,
// secrets absent from the hub's log, install-token races and agent
// rotation and deletion.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/admin"
	"hostgate/internal/agent"
	"hostgate/internal/agentproto"
	"hostgate/internal/battery"
	"hostgate/internal/eventually"
	"hostgate/internal/httpapi"
	"hostgate/internal/hubtest"
)

const missingID = "00000000-0000-4000-8000-000000000000"

// since runs f until it returns nil (at most limit) and returns how long
// after start that was.
func since(t *testing.T, start time.Time, limit time.Duration, what string, f func() error) time.Duration {
	t.Helper()
	eventually.Error(t, limit, what, f)
	return time.Since(start)
}

// closedWithin waits for a socket's close and returns when it came.
func closedWithin(t *testing.T, start time.Time, limit time.Duration, what string, closed <-chan struct{}) time.Duration {
	t.Helper()
	select {
	case <-closed:
		return time.Since(start)
	case <-time.After(limit):
		t.Fatalf("%s still open %v after the change", what, limit)
		return 0
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }

// TestBatterySuspendAndLogoutAcrossInstances (T35, T36): two instances;
// a user with an access token, a refresh token, an API key and a terminal
// socket through each instance is suspended through one of them. Every
// credential is refused and both sockets close within the bounds, on both
// instances; resuming lets a new login in while the old tokens stay dead.
// Then a logout: its refresh token and its access token die on both.
func TestBatterySuspendAndLogoutAcrossInstances(t *testing.T) {
	t.Parallel()
	a := hubtest.Start(t, hubtest.Scaled)
	b := a.StartSibling(t)
	f := newTermFixture(t, a, 8)
	u := f.user
	userHost := "/v1/user/hosts/" + f.host
	for _, x := range []*hubtest.Hub{a, b} { // both instances hold every credential as live
		x.Client(t).As(u.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 200, "")
		x.Client(t).As(f.key).Do("GET", "/v1/api/hosts", nil).Want(t, 200, "")
	}
	var sockets []*wsTerm
	for _, via := range []*hubtest.Hub{a, b} {
		w := dialTerm(t, wsURL(via, userHost+"/terminal/ws?ticket="+ticketFor(t, a, u.AccessToken, userHost)))
		w.send(t, "echo li''ve\n")
		w.waitFor(t, "output", func(out string, _ []map[string]any) bool { return strings.Contains(out, "live") })
		sockets = append(sockets, w)
	}

	op, _ := a.Admin(t, "operator")
	start := time.Now()
	a.Client(t).As(op).Do("POST", "/v1/admin/users/"+u.User.ID+"/suspend", nil).Want(t, 200, "")
	tokenA := since(t, start, time.Second, "instance a refuses the access token", refused(a.Client(t), u.AccessToken, "/v1/user/me"))
	tokenB := since(t, start, 5*time.Second, "instance b refuses the access token", refused(b.Client(t), u.AccessToken, "/v1/user/me"))
	keyB := since(t, start, 5*time.Second, "instance b refuses the API key", refused(b.Client(t), f.key, "/v1/api/hosts"))
	wsA := closedWithin(t, start, 2*time.Second, "the terminal through a", sockets[0].closed)
	wsB := closedWithin(t, start, 5*time.Second, "the terminal through b", sockets[1].closed)
	a.Client(t).As(f.key).Do("GET", "/v1/api/hosts", nil).Want(t, 401, "invalid_token")
	// docs/accounts.md: a suspended account's refresh is 403 account_suspended.
	a.Client(t).Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": u.RefreshToken}).Want(t, 403, "account_suspended")
	if n := auditRows(t, a, op, "?action=user.suspend&target_type=user").Total; n != 1 {
		t.Fatalf("user.suspend audit rows = %d, want 1", n)
	}

	a.Client(t).As(op).Do("POST", "/v1/admin/users/"+u.User.ID+"/resume", nil).Want(t, 200, "")
	var again hubtest.Auth
	b.Client(t).Do("POST", "/v1/public/auth/login", map[string]string{"email": u.User.Email, "password": hubtest.Password}).
		Want(t, 200, "").JSON(t, &again)
	for _, x := range []*hubtest.Hub{a, b} {
		x.Client(t).As(again.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 200, "")
		x.Client(t).As(u.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 401, "invalid_token")
		x.Client(t).Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": u.RefreshToken}).Want(t, 401, "invalid_token")
	}
	battery.Report(t, "T35", "suspend via instance a: access token 401 after %s on a, %s on b; API key 401 after %s on b; terminal sockets closed after %s (a) and %s (b); refresh 403 account_suspended; 1 user.suspend audit row; after resume a new login works and the old tokens stay 401 (pg+redis, 2 instances)",
		ms(tokenA), ms(tokenB), ms(keyB), ms(wsA), ms(wsB))

	// T36: logout with R through a.
	v := a.Register(t)
	for _, x := range []*hubtest.Hub{a, b} {
		x.Client(t).As(v.AccessToken).Do("GET", "/v1/user/me", nil).Want(t, 200, "")
	}
	start = time.Now()
	a.Client(t).Do("POST", "/v1/public/auth/logout", map[string]string{"refresh_token": v.RefreshToken}).Want(t, 200, "")
	outA := since(t, start, time.Second, "instance a refuses the logged-out token", refused(a.Client(t), v.AccessToken, "/v1/user/me"))
	outB := since(t, start, time.Second, "instance b refuses the logged-out token", refused(b.Client(t), v.AccessToken, "/v1/user/me"))
	for _, x := range []*hubtest.Hub{a, b} {
		x.Client(t).Do("POST", "/v1/public/auth/refresh", map[string]string{"refresh_token": v.RefreshToken}).Want(t, 401, "invalid_token")
	}
	battery.Report(t, "T36", "logout with R via a: R → 401 on both instances; the session's access token 401 after %s on a, %s on b (bound 1 s; pg+redis)", ms(outA), ms(outB))
}

// TestBatteryRoutesNeedCredentials (T40): every registered route without
// credentials answers 401 unless it is on the public list; protected
// routes under path variants (trailing slash, doubled slash, %2e%2e
// through a public prefix, upper case) never reach a handler (401 or the
// 404 of docs/security.md boundary 11, never 2xx or 3xx). A new route that
// is neither public nor guarded fails here.
func TestBatteryRoutesNeedCredentials(t *testing.T) {
	t.Parallel()
	h := hubtest.Start(t, hubtest.Embedded)
	public := map[string]bool{
		"GET /healthz": true, "GET /readyz": true, "GET /v1/public/health": true, "GET /v1/openapi.json": true,
		"POST /v1/public/auth/register": true, "POST /v1/public/auth/login": true, "POST /v1/admin/auth/login": true,
		"POST /v1/public/webhooks/payment/{provider}": true, "GET /v1/public/payments/dummy/{order_no}": true,
		"POST /v1/public/payments/dummy/{order_no}": true, "GET /v1/public/agent/downloads": true,
		"GET /download/SHA256SUMS": true, "GET /download/{name}": true, "GET /install/{file}": true,
		"POST /v1/internal/agent/online": true, "POST /v1/internal/agent/token/refresh": true, "POST /gateway": true,
	}
	bodies := map[string]any{
		agentproto.PathSettings: agentproto.SettingsRequest{BID: 1, SecretKey: "0123456789abcdef0123456789abcdef"},
	}
	param := regexp.MustCompile(`\{[^}]*\}`)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(method, path string, body any) (int, string) {
		t.Helper()
		var b []byte
		if body != nil {
			b, _ = json.Marshal(body)
		}
		req, err := http.NewRequest(method, h.URL+path, bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		return resp.StatusCode, buf.String()
	}
	// A GET no route takes is the console's page (docs/console.md), not a
	// handler: a variant may land there.
	_, console := do("GET", "/no-such-page", nil)
	protected, variants, seenPublic, toConsole := 0, 0, 0, 0
	for _, r := range h.Server().Routes() {
		path := param.ReplaceAllString(r.Path, missingID)
		var body any
		if r.Method != "GET" && r.Method != "DELETE" && r.Method != "HEAD" {
			body = map[string]any{}
		}
		if b, ok := bodies[r.Path]; ok {
			body = b
		}
		if public[r.Method+" "+r.Path] {
			seenPublic++
			continue
		}
		protected++
		if st, got := do(r.Method, path, body); st != 401 {
			t.Errorf("%s %s without credentials: %d %.120s, want 401", r.Method, r.Path, st, got)
		}
		for _, v := range []string{path + "/", "/" + path, "/v1/public/%2e%2e" + strings.TrimPrefix(path, "/v1"), strings.ToUpper(path)} {
			variants++
			st, got := do(r.Method, v, body)
			if st == 200 && r.Method == "GET" && got == console {
				toConsole++
				continue
			}
			if st != 401 && st != 404 && st != 405 {
				t.Errorf("%s %s without credentials: %d %.120s, want 401, 404 or 405 (never a handler's answer)", r.Method, v, st, got)
			}
		}
	}
	if seenPublic != len(public) {
		t.Errorf("%d of the %d public routes registered; update the list", seenPublic, len(public))
	}
	if protected < 100 {
		t.Fatalf("only %d protected routes found", protected)
	}
	battery.Report(t, "T40", "%d protected routes → 401 without credentials, %d path variants (trailing /, //, %%2e%%2e via /v1/public, upper case) → 401/404/405 or (%d upper-case GETs) the console page, none a handler's 2xx/3xx; %d routes on the public list", protected, variants, toConsole, seenPublic)
}

// TestBatteryAdminRoleMatrix (T41): every admin route but the four of
// /v1/admin/auth/ is in the route→role table (default deny), and every
// read route answers each role as the table says (writes:
// TestAdminRolesAndAudit).
func TestBatteryAdminRoleMatrix(t *testing.T) {
	t.Parallel()
	h := hubtest.Start(t, hubtest.Embedded)
	inPolicy := map[string]bool{}
	for _, rt := range h.Server().AdminPolicy() {
		inPolicy[rt.Method+" "+rt.Path] = true
	}
	adminRoutes := 0
	for _, r := range h.Server().Routes() {
		if strings.HasPrefix(r.Path, "/v1/admin/") && !strings.HasPrefix(r.Path, "/v1/admin/auth/") {
			adminRoutes++
			if !inPolicy[r.Method+" "+r.Path] {
				t.Errorf("%s %s is not in the route→role table", r.Method, r.Path)
			}
		}
	}
	tokens := map[string]string{}
	for _, role := range []string{"owner", "operator", "finance", "viewer"} {
		tokens[role], _ = h.Admin(t, role)
	}
	c := h.Client(t)
	param := regexp.MustCompile(`\{[^}]*\}`)
	cells, refusals := 0, 0
	for _, rt := range h.Server().AdminPolicy() {
		if rt.Method != "GET" || strings.HasSuffix(rt.Path, "/terminal/ws") { // the socket takes a ticket
			continue
		}
		path := param.ReplaceAllString(rt.Path, missingID)
		for role, tok := range tokens {
			cells++
			r := c.As(tok).Do("GET", path, nil)
			if slices.Contains(rt.Allowed, admin.Role(role)) {
				if r.Status == 403 || r.Status == 401 {
					t.Errorf("GET %s as %s: %d %s, want allowed", rt.Path, role, r.Status, r.Body)
				}
			} else {
				refusals++
				r.Want(t, 403, "forbidden")
			}
		}
	}
	var auditWrites []string
	for _, r := range h.Server().Routes() {
		if strings.Contains(r.Path, "audit") && r.Method != "GET" {
			auditWrites = append(auditWrites, r.Method+" "+r.Path)
		}
	}
	if len(auditWrites) != 0 {
		t.Errorf("routes that could change audit rows: %v", auditWrites)
	}
	battery.Report(t, "T42", "audit log append-only over the API: routes naming it %d, all GET; 0 writes", countAudit(h.Server().Routes()))
	battery.Report(t, "T41", "%d admin routes all in the route→role table; %d read route×role cells match it (%d refused 403 forbidden)", adminRoutes, cells, refusals)
}

// TestBatteryTerminalSocketOrigin (T39). The terminal socket takes only a
// ticket, never a cookie (docs/terminal.md): with a valid ticket and the
// user's cookie, an Origin that is not the hub's is 403; a cookie without a
// ticket is 401 unauthorized, as is nothing at all; plain ws:// when the
// public URL is https is 403.
func TestBatteryTerminalSocketOrigin(t *testing.T) {
	t.Parallel()
	const public = "https://hub.example.com"
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_PUBLIC_URL", public),
		hubtest.WithEnv("HOSTGATE_TRUSTED_PROXIES", "127.0.0.1/32"))
	u := h.Register(t)
	hostID := h.ConnectAgent(t, u.User.ID, func(c *agent.Config) {
		c.APIEndpoint = strings.Replace(c.APIEndpoint, public, h.URL, 1)
		c.WSURL = strings.Replace(c.WSURL, "wss"+strings.TrimPrefix(public, "https"), wsURL(h, ""), 1)
	})
	hostPath := "/v1/user/hosts/" + hostID
	cookie := "gw_at=" + u.AccessToken
	evil := upgradeTerm(t, h, hostPath+"/terminal/ws?ticket="+ticketFor(t, h, u.AccessToken, hostPath),
		http.Header{"Origin": {"https://evil.example"}, "X-Forwarded-Proto": {"https"}, "Cookie": {cookie}})
	cookieOnly := upgradeTerm(t, h, hostPath+"/terminal/ws",
		http.Header{"Origin": {public}, "X-Forwarded-Proto": {"https"}, "Cookie": {cookie}})
	nothing := upgradeTerm(t, h, hostPath+"/terminal/ws", http.Header{"X-Forwarded-Proto": {"https"}})
	plain := upgradeTerm(t, h, hostPath+"/terminal/ws?ticket="+ticketFor(t, h, u.AccessToken, hostPath),
		http.Header{"Origin": {public}, "Cookie": {cookie}})
	good := upgradeTerm(t, h, hostPath+"/terminal/ws?ticket="+ticketFor(t, h, u.AccessToken, hostPath),
		http.Header{"Origin": {public}, "X-Forwarded-Proto": {"https"}})
	if evil != 403 || cookieOnly != 401 || nothing != 401 || plain != 403 || good != 0 {
		t.Fatalf("evil Origin %d (want 403), cookie without ticket %d (401), nothing %d (401), plain ws %d (403), good %d (0 = upgraded)",
			evil, cookieOnly, nothing, plain, good)
	}
	battery.Report(t, "T39", "evil Origin with cookie and ticket → %d; cookie, no ticket → %d; no credentials → %d; plain ws:// under an https hub → %d; the same upgrade done right → upgraded", evil, cookieOnly, nothing, plain)
}

// TestBatterySecretsNotLogged (T37, T38): API keys are refused alike
// whatever is wrong with them; a deleted key is refused on its next call;
// neither a key's secret nor a terminal ticket appears in any line the hub
// logs (access log included, at debug level).
func TestBatterySecretsNotLogged(t *testing.T) {
	t.Parallel()
	env := hubtest.Env(t, hubtest.Embedded)
	env["HOSTGATE_LOG_LEVEL"] = "debug"
	h, logs := startLogged(t, env)
	u := h.Register(t)
	key := apiKey(t, h, u.AccessToken)
	id, secret, _ := strings.Cut(strings.TrimPrefix(key, "ak_"), ".")
	raw, err := base64.RawURLEncoding.DecodeString(secret)
	if err != nil || len(raw)*8 < 128 {
		t.Fatalf("secret %q decodes to %d bits, want ≥128", secret, len(raw)*8)
	}
	c := h.Client(t)
	c.As(key).Do("GET", "/v1/api/hosts", nil).Want(t, 200, "")
	wrongSecret := "ak_" + id + "." + strings.Repeat("A", 43)
	unknownID := "ak_0123456789abcdef." + secret
	var bodies []string
	for _, bad := range []string{"nokeyprefix." + secret, "ak_" + id + secret, "ak_" + id + ".", strings.Repeat("k", 10_000), wrongSecret, unknownID} {
		r := c.As(bad).Do("GET", "/v1/api/hosts", nil).Want(t, 401, "invalid_token")
		bodies = append(bodies, string(r.Body))
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("refusals differ: %s vs %s", b, bodies[0])
		}
	}
	var list struct{ Items []struct{ ID string } }
	c.As(u.AccessToken).Do("GET", "/v1/user/api-keys", nil).Want(t, 200, "").JSON(t, &list)
	c.As(u.AccessToken).Do("DELETE", "/v1/user/api-keys/"+list.Items[0].ID, nil).Want(t, 200, "")
	c.As(key).Do("GET", "/v1/api/hosts", nil).Want(t, 401, "invalid_token")

	hostPath := "/v1/user/hosts/" + h.ConnectAgent(t, u.User.ID, nil)
	tk := ticketFor(t, h, u.AccessToken, hostPath)
	if got := upgradeTerm(t, h, hostPath+"/terminal/ws?ticket="+tk, nil); got != 0 {
		t.Fatalf("upgrade with the ticket: %d", got)
	}
	if got := upgradeTerm(t, h, hostPath+"/terminal/ws?ticket="+tk, nil); got != 401 {
		t.Fatalf("reused ticket: %d, want 401", got)
	}
	eventually.True(t, 5*time.Second, "the access log has the terminal upgrades", func() bool {
		return strings.Count(logs.String(), "/terminal/ws") >= 2
	})
	text := logs.String()
	lines := strings.Count(text, "\n")
	for what, s := range map[string]string{"API key secret": secret, "terminal ticket": tk} {
		if strings.Contains(text, s) {
			t.Errorf("the %s appears in the hub's log", what)
		}
	}
	battery.Report(t, "T37", "secret %d bits; 6 malformed/wrong keys (no ak_, no '.', empty secret, 10 KB, wrong secret, unknown id) → one identical 401 body; deleted key → 401 on the next call; secret in 0 of %d log lines (debug level)", len(raw)*8, lines)
	battery.Report(t, "T38", "ticket reused after an upgrade → 401; ticket in 0 of %d log lines (debug level, access log included)", lines)
}

// TestBatteryInstallTokenRace (T44): fifty concurrent onlines with one
// install token: exactly one succeeds; a reissue kills the unconsumed
// token. The 900 s expiry is the store contract's (hosts/ExchangeInstallToken*).
func TestBatteryInstallTokenRace(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		key := apiKey(t, h, h.Register(t).AccessToken)
		hs, c := createWithCreds(t, h, key)
		statuses := make([]int, 50)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() { statuses[i] = online(t, h, hs.ID, c.InstallToken).Status })
		}
		wg.Wait()
		ok, refused := 0, 0
		for _, s := range statuses {
			switch s {
			case 200:
				ok++
			case 401:
				refused++
			default:
				t.Errorf("online answered %d, want 200 or 401", s)
			}
		}
		if ok != 1 {
			t.Fatalf("%d of 50 concurrent onlines succeeded, want 1", ok)
		}
		var first, second creds
		h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/install-token", nil).Want(t, 200, "").JSON(t, &first)
		h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/install-token", nil).Want(t, 200, "").JSON(t, &second)
		online(t, h, hs.ID, first.InstallToken).Want(t, 401, "invalid_token")
		online(t, h, hs.ID, second.InstallToken).Want(t, 200, "")
		tok, _ := base64.RawURLEncoding.DecodeString(c.InstallToken)
		battery.Report(t, "T44", "50 concurrent onlines with one %d-bit install token → %d success, %d × 401; the token reissued before use → 401 (%s)", len(tok)*8, ok, refused, mode)
	})
}

// rawAgentSocket opens the agent WebSocket with token and sends hello; it
// returns a channel closed when the hub closes the socket.
func rawAgentSocket(t *testing.T, h *hubtest.Hub, token string) (<-chan struct{}, error) {
	t.Helper()
	ev := &socketWatch{closed: make(chan struct{}), welcome: make(chan struct{})}
	conn, resp, err := gws.NewClient(ev, &gws.ClientOption{
		Addr:          wsURL(h, agentproto.PathWS),
		RequestHeader: http.Header{"Authorization": {"Bearer " + token}},
	})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil, err
	}
	go conn.ReadLoop()
	t.Cleanup(func() { _ = conn.NetConn().Close() })
	hello, _ := agentproto.Encode(agentproto.TypeHello, "", agentproto.Hello{Protocol: agentproto.Version, AgentVersion: "1.0.0", OS: "linux"})
	if err := conn.WriteMessage(gws.OpcodeText, hello); err != nil {
		return nil, err
	}
	select {
	case <-ev.welcome:
	case <-time.After(10 * time.Second):
		t.Fatal("no welcome within 10 s")
	}
	return ev.closed, nil
}

type socketWatch struct {
	gws.BuiltinEventHandler
	closed, welcome chan struct{}
	once            sync.Once
}

func (s *socketWatch) OnMessage(_ *gws.Conn, m *gws.Message) {
	defer m.Close()
	if e, err := agentproto.Decode(m.Bytes()); err == nil && e.Type == agentproto.TypeWelcome {
		s.once.Do(func() { close(s.welcome) })
	}
}

func (s *socketWatch) OnClose(*gws.Conn, error) { close(s.closed) }

// TestBatteryRotateSecretWhileConnected (T46): rotate-secret through one
// instance closes the agent's socket held by each instance; the old token
// is refused on heartbeat and on a new socket, the old key cannot renew,
// the old install token is 401, and the new credentials enrol.
func TestBatteryRotateSecretWhileConnected(t *testing.T) {
	t.Parallel()
	a := hubtest.Start(t, hubtest.Scaled)
	b := a.StartSibling(t)
	key := apiKey(t, a, a.Register(t).AccessToken)
	var took [2]time.Duration
	for i, via := range []*hubtest.Hub{a, b} {
		hs, c := createWithCreds(t, a, key)
		seed, _ := base64.StdEncoding.DecodeString(c.AgentPrivkeySeed)
		var tok agentproto.TokenResponse
		online(t, via, hs.ID, c.InstallToken).Want(t, 200, "").JSON(t, &tok)
		closed, err := rawAgentSocket(t, via, tok.AgentToken)
		if err != nil {
			t.Fatal(err)
		}
		var rotated creds
		start := time.Now()
		a.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/rotate-secret", nil).Want(t, 200, "").JSON(t, &rotated)
		took[i] = closedWithin(t, start, 5*time.Second, "the agent socket", closed)
		for _, x := range []*hubtest.Hub{a, b} {
			x.Client(t).As(tok.AgentToken).Do("POST", agentproto.PathHeartbeat, map[string]any{}).Want(t, 401, "invalid_token")
			if _, err := rawAgentSocket(t, x, tok.AgentToken); err == nil {
				t.Fatal("a new socket with the old token was accepted")
			}
		}
		refreshToken(t, a, hs.ID, seed, true).Want(t, 401, "invalid_token")
		online(t, b, hs.ID, c.InstallToken).Want(t, 401, "invalid_token")
		var fresh agentproto.TokenResponse
		online(t, b, hs.ID, rotated.InstallToken).Want(t, 200, "").JSON(t, &fresh)
		newSeed, _ := base64.StdEncoding.DecodeString(rotated.AgentPrivkeySeed)
		refreshToken(t, a, hs.ID, newSeed, true).Want(t, 200, "")
		if _, err := rawAgentSocket(t, a, fresh.AgentToken); err != nil {
			t.Fatalf("new credentials: %v", err)
		}
	}
	if took[0] > time.Second {
		t.Errorf("the socket on the rotating instance closed after %v, want ≤1 s", took[0])
	}
	battery.Report(t, "T46", "rotate-secret via a: agent socket closed after %s on a, %s on b; old token 401 on heartbeat and socket on both; old key cannot renew; old install token 401; new credentials enrol (pg+redis, 2 instances)", ms(took[0]), ms(took[1]))
}

// TestBatteryBannedAndDeletedHost (T48): a banned host is 403 host_banned
// on online, refresh, heartbeat, socket and the client's command route
// (TestBannedHostIsRefusedEverywhere); a deleted host's socket is dropped
// and the host is then 404.
func TestBatteryBannedAndDeletedHost(t *testing.T) {
	t.Parallel()
	h := hubtest.Start(t, hubtest.Embedded)
	u := h.Register(t)
	key := apiKey(t, h, u.AccessToken)
	hs, c := createWithCreds(t, h, key)
	seed, _ := base64.StdEncoding.DecodeString(c.AgentPrivkeySeed)
	var tok agentproto.TokenResponse // the install token stays unspent: online is refused for the ban alone
	refreshToken(t, h, hs.ID, seed, true).Want(t, 200, "").JSON(t, &tok)
	closed, err := rawAgentSocket(t, h, tok.AgentToken)
	if err != nil {
		t.Fatal(err)
	}
	op, _ := h.Admin(t, "operator")
	start := time.Now()
	h.Client(t).As(op).Do("POST", "/v1/admin/hosts/"+hs.ID+"/ban", nil).Want(t, 200, "")
	banClose := closedWithin(t, start, 5*time.Second, "the banned host's socket", closed)
	banned := 0
	for _, r := range []*hubtest.Response{
		online(t, h, hs.ID, c.InstallToken), refreshToken(t, h, hs.ID, seed, true),
		h.Client(t).As(tok.AgentToken).Do("POST", agentproto.PathHeartbeat, map[string]any{}),
		h.Client(t).As(tok.AgentToken).Do("GET", agentproto.PathWS, nil),
		h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/ping", nil),
	} {
		r.Want(t, 403, "host_banned")
		banned++
	}
	gone, gc := createWithCreds(t, h, key)
	var tok2 agentproto.TokenResponse
	online(t, h, gone.ID, gc.InstallToken).Want(t, 200, "").JSON(t, &tok2)
	closed, err = rawAgentSocket(t, h, tok2.AgentToken)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if r := h.Client(t).As(u.AccessToken).Do("DELETE", "/v1/user/hosts/"+gone.ID, nil); r.Status >= 300 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	delClose := closedWithin(t, start, 5*time.Second, "the deleted host's socket", closed)
	h.Client(t).As(key).Do("GET", "/v1/api/hosts/"+gone.ID, nil).Want(t, 404, "not_found")
	h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+gone.ID+"/ping", nil).Want(t, 404, "not_found")
	if delClose > time.Second {
		t.Errorf("deleted host's socket closed after %v, want ≤1 s", delClose)
	}
	battery.Report(t, "T48", "banned: %d agent and client routes → 403 host_banned, live socket closed after %s; deleted: socket dropped after %s, then 404 not_found (embedded)", banned, ms(banClose), ms(delClose))
}

func countAudit(rs []httpapi.Route) int {
	n := 0
	for _, r := range rs {
		if strings.Contains(r.Path, "audit") {
			n++
		}
	}
	return n
}
