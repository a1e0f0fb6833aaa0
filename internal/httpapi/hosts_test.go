package httpapi_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/battery"
	"hostgate/internal/hubtest"
)

type creds struct {
	HostID           string `json:"host_id"`
	BID              int64  `json:"bid"`
	SecretKey        string `json:"secret_key"`
	InstallToken     string `json:"install_token"`
	AgentPrivkeySeed string `json:"agent_privkey_seed"`
	AgentPubkey      string `json:"agent_pubkey"`
	APIEndpoint      string `json:"api_endpoint"`
	WSURL            string `json:"ws_url"`
	ListenPort       int    `json:"listen_port"`
}

type host struct {
	ID         string `json:"id"`
	UserID     string `json:"user_id"`
	Name       string `json:"name"`
	BID        int64  `json:"bid"`
	ListenPort int    `json:"listen_port"`
	Status     string `json:"status"`
	Online     bool   `json:"online"`
}

// apiKey creates an API key for a user and returns its secret.
func apiKey(t *testing.T, h *hubtest.Hub, userToken string) string {
	t.Helper()
	var k struct{ Secret, Prefix, ID string }
	h.Client(t).As(userToken).Do("POST", "/v1/user/api-keys", map[string]string{"name": "ci"}).Want(t, 200, "").JSON(t, &k)
	if !strings.HasPrefix(k.Secret, k.Prefix+".") || k.Prefix != "ak_"+k.ID {
		t.Fatalf("key %+v: secret must be prefix.secret with prefix ak_<id>", k)
	}
	return k.Secret
}

func createWithCreds(t *testing.T, h *hubtest.Hub, key string) (host, creds) {
	t.Helper()
	var out struct {
		Host        host  `json:"host"`
		Credentials creds `json:"credentials"`
	}
	h.Client(t).As(key).Do("POST", "/v1/api/hosts", map[string]any{"name": "web-1", "with_credentials": true}).Want(t, 201, "").JSON(t, &out)
	return out.Host, out.Credentials
}

func TestHostLifecycleThroughUserRoutes(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		c := h.Client(t).As(u.AccessToken)
		var hs host
		c.Do("POST", "/v1/user/hosts", map[string]any{"name": "  box  "}).Want(t, 200, "").JSON(t, &hs)
		if hs.Name != "box" || hs.ListenPort != 23456 || hs.Status != "pending" || hs.BID <= 0 || hs.UserID != u.User.ID {
			t.Errorf("created host = %+v", hs)
		}
		for _, tt := range []struct {
			body any
			code string
		}{
			{map[string]any{"name": ""}, "invalid_name"},
			{map[string]any{"name": strings.Repeat("é", 65)}, "name_too_long"},
			{map[string]any{"name": "x", "listen_port": 80}, "invalid_port"},
			{map[string]any{"name": "x", "listen_port": 65536}, "invalid_port"},
		} {
			c.Do("POST", "/v1/user/hosts", tt.body).Want(t, 400, tt.code)
		}
		c.Do("POST", "/v1/user/hosts", map[string]any{"name": strings.Repeat("é", 64), "listen_port": 1024}).Want(t, 200, "")

		var got host
		c.Do("PUT", "/v1/user/hosts/"+hs.ID, map[string]any{"listen_port": 30000}).Want(t, 200, "").JSON(t, &got)
		if got.ListenPort != 30000 || got.Name != "box" {
			t.Errorf("after update: %+v", got)
		}
		var list struct{ Items []host }
		c.Do("GET", "/v1/user/hosts", nil).Want(t, 200, "").JSON(t, &list)
		if len(list.Items) != 2 || list.Items[0].Online {
			t.Errorf("list = %+v, want two offline hosts", list.Items)
		}
		var one struct {
			Host   host `json:"host"`
			Online bool `json:"online"`
		}
		c.Do("GET", "/v1/user/hosts/"+hs.ID, nil).Want(t, 200, "").JSON(t, &one)
		if one.Host.ID != hs.ID || one.Online {
			t.Errorf("get = %+v", one)
		}
		var tok struct {
			InstallToken string `json:"install_token"`
			Credentials  creds  `json:"credentials"`
		}
		c.Do("POST", "/v1/user/hosts/"+hs.ID+"/install-token", nil).Want(t, 200, "").JSON(t, &tok)
		if tok.InstallToken == "" || tok.InstallToken != tok.Credentials.InstallToken {
			t.Errorf("install-token answer = %+v", tok)
		}
		c.Do("DELETE", "/v1/user/hosts/"+hs.ID, nil).Want(t, 200, "")
		c.Do("GET", "/v1/user/hosts/"+hs.ID, nil).Want(t, 404, "not_found")
		c.Do("DELETE", "/v1/user/hosts/"+hs.ID, nil).Want(t, 404, "not_found")
	})
}

func TestInstallCredentials(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_PUBLIC_URL", "https://hub.example.com"),
		hubtest.WithEnv("GATEWAY_EXE_URL", "https://dl.example.com/agent.exe"), hubtest.WithEnv("GATEWAY_EXE_SHA256", strings.Repeat("ab", 32)))
	key := apiKey(t, h, h.Register(t).AccessToken)
	hs, c := createWithCreds(t, h, key)
	if c.HostID != hs.ID || c.BID != hs.BID || c.ListenPort != 23456 {
		t.Errorf("credentials %+v do not match host %+v", c, hs)
	}
	if b, err := hex.DecodeString(c.SecretKey); err != nil || len(c.SecretKey) != 32 || len(b) != 16 {
		t.Errorf("secret_key %q is not 32 hex characters", c.SecretKey)
	}
	seed, err := base64.StdEncoding.DecodeString(c.AgentPrivkeySeed)
	if err != nil || len(seed) != 32 {
		t.Fatalf("seed %q is not base64 of 32 bytes", c.AgentPrivkeySeed)
	}
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	if c.AgentPubkey != "ed25519:"+base64.StdEncoding.EncodeToString(pub) {
		t.Errorf("agent_pubkey %q does not match the seed", c.AgentPubkey)
	}
	if len(c.InstallToken) != 43 {
		t.Errorf("install_token has %d characters, want 43", len(c.InstallToken))
	}
	if c.APIEndpoint != "https://hub.example.com" || c.WSURL != "wss://hub.example.com/v1/internal/agent/ws" {
		t.Errorf("endpoints = %q, %q", c.APIEndpoint, c.WSURL)
	}
	var again creds
	h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/install-token", nil).Want(t, 200, "").JSON(t, &again)
	if again.SecretKey != c.SecretKey || again.AgentPrivkeySeed == c.AgentPrivkeySeed || again.InstallToken == c.InstallToken {
		t.Errorf("install-token must keep the secret and renew key pair and token")
	}
	var rotated creds
	h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/rotate-secret", nil).Want(t, 200, "").JSON(t, &rotated)
	if rotated.SecretKey == c.SecretKey || rotated.AgentPrivkeySeed == again.AgentPrivkeySeed {
		t.Errorf("rotate-secret must renew the secret and key pair")
	}
}

func online(t *testing.T, h *hubtest.Hub, hostID, token string) *hubtest.Response {
	t.Helper()
	return h.Client(t).Do("POST", agentproto.PathOnline, agentproto.OnlineRequest{HostID: hostID, InstallToken: token})
}

func TestInstallTokenIsConsumedOnce(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		key := apiKey(t, h, h.Register(t).AccessToken)
		hs, c := createWithCreds(t, h, key)
		statuses := make([]int, 20)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() { statuses[i] = online(t, h, hs.ID, c.InstallToken).Status })
		}
		wg.Wait()
		n := 0
		for _, s := range statuses {
			if s == 200 {
				n++
			} else if s != 401 {
				t.Errorf("online answered %d, want 200 or 401", s)
			}
		}
		if n != 1 {
			t.Fatalf("%d of 20 concurrent online calls succeeded, want exactly 1", n)
		}
		// A reissue invalidates an unconsumed token.
		var first, second creds
		h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/install-token", nil).Want(t, 200, "").JSON(t, &first)
		h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/install-token", nil).Want(t, 200, "").JSON(t, &second)
		online(t, h, hs.ID, first.InstallToken).Want(t, 401, "invalid_token")
		online(t, h, hs.ID, second.InstallToken).Want(t, 200, "")
	})
}

func refreshToken(t *testing.T, h *hubtest.Hub, hostID string, seed []byte, prefix bool) *hubtest.Response {
	t.Helper()
	var ch agentproto.ChallengeResponse
	h.Client(t).Do("POST", agentproto.PathRefresh, agentproto.RefreshRequest{HostID: hostID}).Want(t, 200, "").JSON(t, &ch)
	msg := agentproto.ChallengeMessage(hostID, ch.Challenge)
	if !prefix {
		msg = []byte(ch.Challenge)
	}
	sig := ed25519.Sign(ed25519.NewKeyFromSeed(seed), msg)
	return h.Client(t).Do("POST", agentproto.PathRefresh, agentproto.RefreshRequest{
		HostID: hostID, Challenge: ch.Challenge, Signature: base64.StdEncoding.EncodeToString(sig)})
}

func TestAgentTokenRefreshByChallenge(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		key := apiKey(t, h, h.Register(t).AccessToken)
		hs, c := createWithCreds(t, h, key)
		seed, _ := base64.StdEncoding.DecodeString(c.AgentPrivkeySeed)
		var tok agentproto.TokenResponse
		refreshToken(t, h, hs.ID, seed, true).Want(t, 200, "").JSON(t, &tok)
		beat := func(token string) *hubtest.Response {
			return h.Client(t).As(token).Do("POST", agentproto.PathHeartbeat, map[string]any{})
		}
		beat(tok.AgentToken).Want(t, 200, "")
		beat("").Want(t, 401, "missing_agent_token")

		// A signature without the domain prefix, a replayed challenge, and
		// another host's key are all refused.
		refreshToken(t, h, hs.ID, seed, false).Want(t, 401, "invalid_token")
		var ch agentproto.ChallengeResponse
		h.Client(t).Do("POST", agentproto.PathRefresh, agentproto.RefreshRequest{HostID: hs.ID}).JSON(t, &ch)
		sig := base64.StdEncoding.EncodeToString(ed25519.Sign(ed25519.NewKeyFromSeed(seed), agentproto.ChallengeMessage(hs.ID, ch.Challenge)))
		req := agentproto.RefreshRequest{HostID: hs.ID, Challenge: ch.Challenge, Signature: sig}
		h.Client(t).Do("POST", agentproto.PathRefresh, req).Want(t, 200, "")
		h.Client(t).Do("POST", agentproto.PathRefresh, req).Want(t, 401, "invalid_token")
		other, oc := createWithCreds(t, h, key)
		otherSeed, _ := base64.StdEncoding.DecodeString(oc.AgentPrivkeySeed)
		refreshToken(t, h, hs.ID, otherSeed, true).Want(t, 401, "invalid_token")
		_ = other

		// After rotate-secret the old key and the old token are dead.
		h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/rotate-secret", nil).Want(t, 200, "")
		refreshToken(t, h, hs.ID, seed, true).Want(t, 401, "invalid_token")
		beat(tok.AgentToken).Want(t, 401, "invalid_token")
	})
}

func TestBannedHostIsRefusedEverywhere(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	key := apiKey(t, h, h.Register(t).AccessToken)
	hs, c := createWithCreds(t, h, key)
	seed, _ := base64.StdEncoding.DecodeString(c.AgentPrivkeySeed)
	var tok agentproto.TokenResponse
	refreshToken(t, h, hs.ID, seed, true).Want(t, 200, "").JSON(t, &tok)
	// A command before the ban: the host is kept as a command target.
	h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/ping", nil).Want(t, 409, "host_offline")
	op, _ := h.Admin(t, "operator")
	h.Client(t).As(op).Do("POST", "/v1/admin/hosts/"+hs.ID+"/ban", nil).Want(t, 200, "")
	online(t, h, hs.ID, c.InstallToken).Want(t, 403, "host_banned")
	refreshToken(t, h, hs.ID, seed, true).Want(t, 403, "host_banned")
	h.Client(t).As(tok.AgentToken).Do("POST", agentproto.PathHeartbeat, map[string]any{}).Want(t, 403, "host_banned")
	h.Client(t).As(tok.AgentToken).Do("GET", agentproto.PathWS, nil).Want(t, 403, "host_banned")
	h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/ping", nil).Want(t, 403, "host_banned")
	h.Client(t).As(op).Do("POST", "/v1/admin/hosts/"+hs.ID+"/unban", nil).Want(t, 200, "")
	refreshToken(t, h, hs.ID, seed, true).Want(t, 200, "")
	// Not connected: a command is host_offline.
	h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/ping", nil).Want(t, 409, "host_offline")
}

func TestAPIKeys(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		key := apiKey(t, h, u.AccessToken)
		c := h.Client(t)
		c.As(key).Do("GET", "/v1/api/hosts", nil).Want(t, 200, "")
		for _, bad := range []string{"", "ak_", "ak_nodot", key + "x", "ak_0000000000000000." + strings.Repeat("a", 43), strings.Repeat("a", 5000), u.AccessToken} {
			r := c.As(bad).Do("GET", "/v1/api/hosts", nil)
			if r.Status != 401 {
				t.Errorf("key %.20q: %d, want 401", bad, r.Status)
			}
		}
		var list struct {
			Items []struct {
				ID, Name, Prefix string
				LastUsedAt       *string `json:"last_used_at"`
				Secret           string  `json:"secret"`
			}
		}
		c.As(u.AccessToken).Do("GET", "/v1/user/api-keys", nil).Want(t, 200, "").JSON(t, &list)
		if len(list.Items) != 1 || list.Items[0].Secret != "" || list.Items[0].LastUsedAt == nil {
			t.Fatalf("keys = %+v, want one key without secret, with last_used_at", list.Items)
		}
		// Another user cannot delete it; its owner can, and it stops at once.
		other := h.Register(t)
		c.As(other.AccessToken).Do("DELETE", "/v1/user/api-keys/"+list.Items[0].ID, nil).Want(t, 404, "not_found")
		c.As(u.AccessToken).Do("DELETE", "/v1/user/api-keys/"+list.Items[0].ID, nil).Want(t, 200, "")
		c.As(key).Do("GET", "/v1/api/hosts", nil).Want(t, 401, "invalid_token")

		// A suspended user's keys stop at once.
		key2 := apiKey(t, h, u.AccessToken)
		c.As(key2).Do("GET", "/v1/api/hosts", nil).Want(t, 200, "")
		op, _ := h.Admin(t, "operator")
		c.As(op).Do("POST", "/v1/admin/users/"+u.User.ID+"/suspend", nil).Want(t, 200, "")
		c.As(key2).Do("GET", "/v1/api/hosts", nil).Want(t, 401, "invalid_token")
	})
}

// validOpBodies are bodies each operation route accepts, so that the
// answer is about the host and not the input.
var validOpBodies = map[string]any{
	"tags":                       map[string]any{"tags": map[string]string{"stolen": ""}},
	"files/dir":                  map[string]any{"controls": 1, "path": "/x"},
	"files/text":                 map[string]any{"controls": 32, "path": "/x"},
	"files/zip":                  map[string]any{"controls": 128, "path": "/x.zip", "data": "/y"},
	"files/download":             map[string]any{"controls": 256, "path": "/x", "data": map[string]any{"url": "http://example.com/x"}},
	"process/exec":               map[string]any{"controls": 1024, "path": "/bin/true"},
	"process/shell":              map[string]any{"controls": 8192, "path": "/bin/sh", "data": map[string]any{"args": "-c true"}},
	"process/kill":               map[string]any{"controls": 4096, "path": "x.exe"},
	"service/ctl":                map[string]any{"controls": 1 << 26, "data": map[string]any{"action": "list"}},
	"registry/rw":                map[string]any{"controls": 1 << 27, "path": `HKLM\Software`, "data": map[string]any{"action": "list"}},
	"scheduled-task/ctl":         map[string]any{"controls": 1 << 28, "data": map[string]any{"action": "list"}},
	"controls/raw":               map[string]any{"controls": 1 << 24},
	"l1-config":                  map[string]any{"bid": 12345, "secret_key": "0123456789abcdef0123456789abcdef", "url": ""},
	"shell/session/{sid}/write":  map[string]any{"input": "x"},
	"shell/session/{sid}/resize": map[string]any{"cols": 80, "rows": 24},
}

// TestTenantIsolation: user A's credentials get not_found, exactly as for a
// missing host, on every route that names user B's host.
func TestTenantIsolation(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		a, b := h.Register(t), h.Register(t)
		keyA, keyB := apiKey(t, h, a.AccessToken), apiKey(t, h, b.AccessToken)
		hostB, _ := createWithCreds(t, h, keyB)
		missing := "00000000-0000-4000-8000-000000000000"
		// Every client API route that names a host, from the route table,
		// except the two that answer 501 whatever the host.
		var routes []struct{ method, path string }
		for _, r := range h.Server().Routes() {
			if strings.HasPrefix(r.Path, "/v1/api/hosts/{id}") && !strings.HasSuffix(r.Path, "/upload") && !strings.HasSuffix(r.Path, "/stream") {
				routes = append(routes, struct{ method, path string }{r.Method, strings.Replace(r.Path, "{id}", "%s", 1)})
			}
		}
		if len(routes) < 18 {
			t.Fatalf("only %d host routes found", len(routes))
		}
		userRoutes := []struct{ method, path string }{
			{"GET", "/v1/user/hosts/%s"}, {"PUT", "/v1/user/hosts/%s"}, {"DELETE", "/v1/user/hosts/%s"},
			{"POST", "/v1/user/hosts/%s/install-token"}, {"POST", "/v1/user/hosts/%s/rotate-secret"},
			{"POST", "/v1/user/hosts/%s/terminal/ticket"}, {"PUT", "/v1/user/hosts/%s/tags"},
		}
		check := func(tok string, rs []struct{ method, path string }) {
			for _, r := range rs {
				var body any
				if r.method == "PUT" {
					body = map[string]any{"name": "stolen"}
				}
				if strings.HasSuffix(r.path, "/tags") {
					body = validOpBodies["tags"]
				}
				if b, ok := validOpBodies[strings.TrimPrefix(r.path, "/v1/api/hosts/%s/")]; ok {
					body = b
				}
				foreign := h.Client(t).As(tok).Do(r.method, strings.Replace(r.path, "%s", hostB.ID, 1), body).Want(t, 404, "not_found")
				absent := h.Client(t).As(tok).Do(r.method, strings.Replace(r.path, "%s", missing, 1), body).Want(t, 404, "not_found")
				if string(foreign.Body) != string(absent.Body) {
					t.Errorf("%s %s: foreign %s differs from missing %s", r.method, r.path, foreign.Body, absent.Body)
				}
			}
		}
		check(keyA, routes)
		check(a.AccessToken, userRoutes)
		var list struct{ Items []host }
		h.Client(t).As(keyA).Do("GET", "/v1/api/hosts", nil).Want(t, 200, "").JSON(t, &list)
		if len(list.Items) != 0 {
			t.Errorf("user A sees %d hosts, want 0", len(list.Items))
		}
		// B's host is untouched.
		var got HostItem
		h.Client(t).As(keyB).Do("GET", "/v1/api/hosts/"+hostB.ID, nil).Want(t, 200, "").JSON(t, &got)
		if got.Name != "web-1" {
			t.Errorf("B's host renamed to %q", got.Name)
		}
		battery.Report(t, "T43", "%d client-API and %d user routes naming a host: another tenant's host → 404 not_found, byte-identical to a missing id; the host unchanged (%s)", len(routes), len(userRoutes), mode)
	})
}

// HostItem is the client API host answer.
type HostItem = host

func TestInstallerScripts(t *testing.T) {
	plain := hubtest.Start(t, hubtest.Embedded)
	key := apiKey(t, plain, plain.Register(t).AccessToken)
	hs, c := createWithCreds(t, plain, key)
	// Refused requests issue nothing: the current install token still works.
	plain.Client(t).As(key).Do("GET", "/v1/api/hosts/"+hs.ID+"/installer?format=ps1", nil).Want(t, 503, "exe_not_configured")
	plain.Client(t).As(key).Do("GET", "/v1/api/hosts/"+hs.ID+"/installer", nil).Want(t, 503, "exe_not_configured")
	plain.Client(t).As(key).Do("GET", "/v1/api/hosts/"+hs.ID+"/installer?format=zip", nil).Want(t, 400, "invalid_query")
	online(t, plain, hs.ID, c.InstallToken).Want(t, 200, "")

	exe := []byte("MZ pretend agent executable")
	sum := sha256.Sum256(exe)
	dl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(exe) }))
	t.Cleanup(dl.Close)
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("GATEWAY_EXE_URL", dl.URL+"/agent.exe"),
		hubtest.WithEnv("GATEWAY_EXE_SHA256", hex.EncodeToString(sum[:])))
	u := h.Register(t)
	key = apiKey(t, h, u.AccessToken)
	hs, c = createWithCreds(t, h, key)
	r := h.Client(t).As(key).Do("GET", "/v1/api/hosts/"+hs.ID+"/installer?format=ps1", nil).Want(t, 200, "")
	if got := r.Header.Get("Content-Disposition"); got != `attachment; filename="install-`+hs.ID+`.ps1"` {
		t.Errorf("Content-Disposition = %q", got)
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") || !strings.Contains(string(r.Body), "--install-template") {
		t.Errorf("ps1: %s %q", r.Header.Get("Content-Type"), r.Body)
	}
	// The script carries a fresh token; the one before it is dead.
	online(t, h, hs.ID, c.InstallToken).Want(t, 401, "invalid_token")
	r = h.Client(t).As(key).Do("GET", "/v1/api/hosts/"+hs.ID+"/installer?format=cmd", nil).Want(t, 200, "")
	if r.Header.Get("Content-Type") != "application/octet-stream" || !strings.HasPrefix(string(r.Body), "@echo off") {
		t.Errorf("cmd: %s %.40q", r.Header.Get("Content-Type"), r.Body)
	}
	r = h.Client(t).As(key).Do("GET", "/v1/api/hosts/"+hs.ID+"/installer", nil).Want(t, 200, "")
	p, err := agentproto.ReadPayload(r.Body)
	if err != nil || !bytes.HasPrefix(r.Body, exe) || p.Hub.HostID != hs.ID || p.Hub.InstallToken == "" {
		t.Fatalf("exe installer: payload %+v, %v", p, err)
	}
	online(t, h, hs.ID, p.Hub.InstallToken).Want(t, 200, "")
	r = h.Client(t).As(u.AccessToken).Do("GET", "/v1/user/hosts/"+hs.ID+"/installer", nil).Want(t, 200, "")
	if !strings.Contains(string(r.Body), `"host_id":"`+hs.ID+`"`) {
		t.Errorf("user installer lacks the host id")
	}
	other := h.Register(t)
	h.Client(t).As(other.AccessToken).Do("GET", "/v1/user/hosts/"+hs.ID+"/installer", nil).Want(t, 404, "not_found")
	h.Client(t).As(apiKey(t, h, other.AccessToken)).Do("GET", "/v1/api/hosts/"+hs.ID+"/installer?format=ps1", nil).Want(t, 404, "not_found")
}
