package httpapi_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
)

// provisioning is the provisioning payload of spec section 2 as a client
// reads it.
type provisioning struct {
	SchemaVersion int `json:"schema_version"`
	Hub           struct {
		HostID           string `json:"host_id"`
		BID              int64  `json:"bid"`
		SecretKey        string `json:"secret_key"`
		InstallToken     string `json:"install_token"`
		AgentPrivkeySeed string `json:"agent_privkey_seed"`
		AgentPubkey      string `json:"agent_pubkey"`
		WSURL            string `json:"ws_url"`
		APIEndpoint      string `json:"api_endpoint"`
		ListenPort       int    `json:"listen_port"`
	} `json:"hub"`
	Autologon *struct {
		Username string `json:"username"`
		Password string `json:"password"`
	} `json:"autologon"`
}

// checkPayload checks an answer of a provisioning-payload route: the
// headers, the size, every required field, the key pair, and that the
// hub section has nothing else; it returns the payload and its seed.
func checkPayload(t *testing.T, r *hubtest.Response, hostID string) (provisioning, []byte) {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/json" && !strings.HasPrefix(ct, "application/json;") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	if cd := r.Header.Get("Content-Disposition"); cd != `attachment; filename="provisioning-`+hostID+`.json"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	if n := len(r.Body); n >= 1024 {
		t.Errorf("payload is %d bytes, want under 1 KB", n)
	}
	if len(r.Body) == 0 || r.Body[0] == '#' {
		t.Errorf("payload %q must be JSON not beginning with #", r.Body)
	}
	// The one validator the first-boot installer applies takes it.
	parsed, err := agentproto.ParsePayload(r.Body)
	if err != nil {
		t.Fatalf("agentproto.ParsePayload refuses the payload: %v", err)
	}
	if parsed.Hub.HostID != hostID || parsed.Extra != "" || parsed.Hub.Extra != "" {
		t.Errorf("parsed payload %+v", parsed)
	}
	var p provisioning
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("payload %s: %v", r.Body, err)
	}
	var raw map[string]map[string]any
	_ = json.Unmarshal(r.Body, &raw)
	for _, f := range []string{"host_id", "bid", "secret_key", "install_token", "agent_privkey_seed", "agent_pubkey", "ws_url", "api_endpoint"} {
		if v, ok := raw["hub"][f]; !ok || v == "" || v == nil {
			t.Errorf("hub.%s is missing or empty in %s", f, r.Body)
		}
	}
	if p.SchemaVersion != 1 || p.Hub.HostID != hostID || len(p.Hub.SecretKey) != 32 || len(p.Hub.InstallToken) != 43 || p.Hub.ListenPort != 23456 {
		t.Errorf("payload %+v", p)
	}
	seed, err := base64.StdEncoding.DecodeString(p.Hub.AgentPrivkeySeed)
	if err != nil || len(seed) != ed25519.SeedSize {
		t.Fatalf("agent_privkey_seed %q is not base64 of 32 bytes", p.Hub.AgentPrivkeySeed)
	}
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	if p.Hub.AgentPubkey != base64.StdEncoding.EncodeToString(pub) {
		t.Errorf("agent_pubkey %q is not the bare base64 of the seed's public key", p.Hub.AgentPubkey)
	}
	return p, seed
}

// TestProvisioningPayload: both routes answer the payload as a JSON file,
// with the side effects of install-token (the old install token and key
// refused, the secret kept), free of charge with no balance.
func TestProvisioningPayload(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		key := apiKey(t, h, u.AccessToken)
		hs, c := createWithCreds(t, h, key)
		oldSeed, _ := base64.StdEncoding.DecodeString(c.AgentPrivkeySeed)
		refreshToken(t, h, hs.ID, oldSeed, true).Want(t, 200, "")
		if b := balanceOf(t, h, u.AccessToken); b != 0 {
			t.Fatalf("balance %v, want 0", b)
		}

		r := h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/provisioning-payload", nil).Want(t, 200, "")
		p, seed := checkPayload(t, r, hs.ID)
		if p.Autologon != nil || bytes.Contains(r.Body, []byte("autologon")) {
			t.Errorf("payload without autologon asked for has one: %s", r.Body)
		}
		if p.Hub.BID != c.BID || p.Hub.SecretKey != c.SecretKey || p.Hub.WSURL != c.WSURL || p.Hub.APIEndpoint != c.APIEndpoint {
			t.Errorf("payload hub %+v does not match the host's credentials %+v", p.Hub, c)
		}
		if p.Hub.InstallToken == c.InstallToken || p.Hub.AgentPrivkeySeed == c.AgentPrivkeySeed {
			t.Errorf("payload must carry a new install token and key pair")
		}
		// install-token's side effects.
		online(t, h, hs.ID, c.InstallToken).Want(t, 401, "invalid_token")
		refreshToken(t, h, hs.ID, oldSeed, true).Want(t, 401, "invalid_token")
		refreshToken(t, h, hs.ID, seed, true).Want(t, 200, "")

		// The user route, with the empty bodies a client may send.
		uc := h.Client(t).As(u.AccessToken)
		path := "/v1/user/hosts/" + hs.ID + "/provisioning-payload"
		var last provisioning
		for _, body := range []any{nil, "", "{}", map[string]any{}} {
			r := uc.Do("POST", path, body).Want(t, 200, "")
			got, _ := checkPayload(t, r, hs.ID)
			if got.Autologon != nil || got.Hub.SecretKey != c.SecretKey || got.Hub.InstallToken == p.Hub.InstallToken {
				t.Errorf("body %v: payload %+v", body, got)
			}
			last = got
		}
		online(t, h, hs.ID, p.Hub.InstallToken).Want(t, 401, "invalid_token")
		online(t, h, hs.ID, last.Hub.InstallToken).Want(t, 200, "")

		// Free: no charge with a balance of 0 in charging mode.
		if b := balanceOf(t, h, u.AccessToken); b != 0 {
			t.Errorf("balance %v after the payloads, want 0", b)
		}
		var events struct{ Items []map[string]any }
		uc.Do("GET", "/v1/user/billing/events", nil).Want(t, 200, "").JSON(t, &events)
		if len(events.Items) != 0 {
			t.Errorf("billing events %v, want none", events.Items)
		}
		var bm struct{ Mode string }
		fin, _ := h.Admin(t, "finance")
		h.Client(t).As(fin).Do("GET", "/v1/admin/billing/mode", nil).Want(t, 200, "").JSON(t, &bm)
		if bm.Mode != "charging" {
			t.Errorf("billing mode %q, want charging", bm.Mode)
		}

		// Deleted: as install-token, not_found.
		h.Client(t).As(key).Do("DELETE", "/v1/api/hosts/"+hs.ID, nil).Want(t, 204, "")
		h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/install-token", nil).Want(t, 404, "not_found")
		h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/provisioning-payload", nil).Want(t, 404, "not_found")
		uc.Do("POST", path, nil).Want(t, 404, "not_found")
	})
}

// TestProvisioningPayloadAutologon: autologon is there only when asked
// for; the username defaults to Administrator, a missing password is
// generated, a short one is refused and changes nothing.
func TestProvisioningPayloadAutologon(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		u := h.Register(t)
		key := apiKey(t, h, u.AccessToken)
		hs, _ := createWithCreds(t, h, key)
		path := "/v1/api/hosts/" + hs.ID + "/provisioning-payload"
		ask := func(al map[string]any) *hubtest.Response {
			return h.Client(t).As(key).Do("POST", path, map[string]any{"autologon": al})
		}

		seen := map[string]bool{}
		for range 3 {
			p, _ := checkPayload(t, ask(map[string]any{}).Want(t, 200, ""), hs.ID)
			if p.Autologon == nil || p.Autologon.Username != "Administrator" || len(p.Autologon.Password) < 16 {
				t.Fatalf("generated autologon %+v", p.Autologon)
			}
			pw := p.Autologon.Password
			if len(pw) != 24 || !strings.ContainsAny(pw, "ABCDEFGHJKLMNPQRSTUVWXYZ") || !strings.ContainsAny(pw, "abcdefghijkmnopqrstuvwxyz") ||
				!strings.ContainsAny(pw, "23456789") || !strings.ContainsAny(pw, "-_.@#") {
				t.Errorf("generated password %q: want 24 characters with upper, lower, digit and symbol", pw)
			}
			if seen[pw] {
				t.Errorf("generated password %q twice", pw)
			}
			seen[pw] = true
		}
		r := ask(map[string]any{"username": "ops", "password": "0123456789abcdef"}).Want(t, 200, "")
		p, _ := checkPayload(t, r, hs.ID)
		if p.Autologon == nil || p.Autologon.Username != "ops" || p.Autologon.Password != "0123456789abcdef" {
			t.Errorf("given autologon %+v", p.Autologon)
		}
		// The longest autologon the route takes still fits in 1 KB.
		long := ask(map[string]any{"username": strings.Repeat(`"`, 64), "password": strings.Repeat(`\`, 128)}).Want(t, 200, "")
		checkPayload(t, long, hs.ID)

		// Refusals: each is invalid_body and issues nothing, so the last
		// payload's install token still works.
		last, _ := checkPayload(t, ask(nil).Want(t, 200, ""), hs.ID)
		for _, tt := range []struct {
			body any
			says string
		}{
			{map[string]any{"autologon": map[string]any{"password": "0123456789abcde"}}, "16"},
			{map[string]any{"autologon": map[string]any{"password": ""}}, "16"},
			{map[string]any{"autologon": map[string]any{"password": strings.Repeat("x", 129)}}, "128"},
			{map[string]any{"autologon": map[string]any{"username": strings.Repeat("u", 65)}}, "64"},
			{map[string]any{"autologon": map[string]any{"username": "a\tb"}}, "control"},
			{map[string]any{"autologon": map[string]any{"password": "0123456789abcdef\n"}}, "control"},
			{map[string]any{"autologon": map[string]any{"password": 12}}, "password"},
			{map[string]any{"autologon": "yes"}, "autologon"},
			{`{"autologon":`, ""},
		} {
			r := h.Client(t).As(key).Do("POST", path, tt.body)
			r.Want(t, 400, "invalid_body")
			var e struct{ Message string }
			r.JSON(t, &e)
			if !strings.Contains(e.Message, tt.says) {
				t.Errorf("%v: message %q does not say %q", tt.body, e.Message, tt.says)
			}
			if strings.Contains(e.Message, "0123456789abcde") || strings.Contains(e.Message, "xxxxxxxx") {
				t.Errorf("%v: message %q echoes the password", tt.body, e.Message)
			}
		}
		online(t, h, hs.ID, last.Hub.InstallToken).Want(t, 200, "")
	})
}

// TestProvisioningPayloadTenantBoundary: another user's host is not_found
// on both routes, as a missing one is, and nothing is rotated.
func TestProvisioningPayloadTenantBoundary(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		owner, other := h.Register(t), h.Register(t)
		hs, c := createWithCreds(t, h, apiKey(t, h, owner.AccessToken))
		seed, _ := base64.StdEncoding.DecodeString(c.AgentPrivkeySeed)
		otherKey := apiKey(t, h, other.AccessToken)
		missing := "00000000-0000-4000-8000-000000000000"
		for _, as := range []struct{ tok, prefix string }{{otherKey, "/v1/api/hosts/"}, {other.AccessToken, "/v1/user/hosts/"}} {
			for _, body := range []any{nil, map[string]any{"autologon": map[string]any{}}} {
				foreign := h.Client(t).As(as.tok).Do("POST", as.prefix+hs.ID+"/provisioning-payload", body).Want(t, 404, "not_found")
				absent := h.Client(t).As(as.tok).Do("POST", as.prefix+missing+"/provisioning-payload", body).Want(t, 404, "not_found")
				if !bytes.Equal(foreign.Body, absent.Body) {
					t.Errorf("foreign %s differs from missing %s", foreign.Body, absent.Body)
				}
			}
			h.Client(t).As(as.tok).Do("POST", as.prefix+"not-a-uuid/provisioning-payload", nil).Want(t, 400, "invalid_id")
		}
		h.Client(t).Do("POST", "/v1/api/hosts/"+hs.ID+"/provisioning-payload", nil).Want(t, 401, "unauthorized")
		h.Client(t).Do("POST", "/v1/user/hosts/"+hs.ID+"/provisioning-payload", nil).Want(t, 401, "unauthorized")
		// Nothing rotated: the owner's key pair and install token still work.
		refreshToken(t, h, hs.ID, seed, true).Want(t, 200, "")
		online(t, h, hs.ID, c.InstallToken).Want(t, 200, "")
	})
}

// TestProvisioningPayloadBannedAndCrossSite: a banned host answers as
// install-token does; the user route, like every user POST, refuses a
// cookie request from another site and changes nothing.
func TestProvisioningPayloadBannedAndCrossSite(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	u := h.Register(t)
	key := apiKey(t, h, u.AccessToken)
	hs, c := createWithCreds(t, h, key)

	req, err := http.NewRequest("POST", h.URL+"/v1/user/hosts/"+hs.ID+"/provisioning-payload", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: "gw_at", Value: u.AccessToken})
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	h.Client(t).Send(req).Want(t, 403, "forbidden")
	online(t, h, hs.ID, c.InstallToken).Want(t, 200, "")

	same, err := http.NewRequest("POST", h.URL+"/v1/user/hosts/"+hs.ID+"/provisioning-payload", nil)
	if err != nil {
		t.Fatal(err)
	}
	same.AddCookie(&http.Cookie{Name: "gw_at", Value: u.AccessToken})
	same.Header.Set("Sec-Fetch-Site", "same-origin")
	checkPayload(t, h.Client(t).Send(same).Want(t, 200, ""), hs.ID)

	op, _ := h.Admin(t, "operator")
	h.Client(t).As(op).Do("POST", "/v1/admin/hosts/"+hs.ID+"/ban", nil).Want(t, 200, "")
	tok := h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/install-token", nil)
	for _, r := range []*hubtest.Response{
		h.Client(t).As(key).Do("POST", "/v1/api/hosts/"+hs.ID+"/provisioning-payload", nil),
		h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/hosts/"+hs.ID+"/provisioning-payload", nil),
	} {
		if r.Status != tok.Status || r.Code() != tok.Code() {
			t.Errorf("banned host: payload answered %d %s, install-token %d %s", r.Status, r.Body, tok.Status, tok.Body)
		}
	}
}
