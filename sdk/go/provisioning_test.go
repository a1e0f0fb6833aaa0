package hostgate

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
)

func TestProvisioningPayloadRequest(t *testing.T) {
	const answer = `{"schema_version":1,"hub":{"host_id":"h1","bid":7,"secret_key":"s","install_token":"t",` +
		`"agent_privkey_seed":"c2VlZA==","agent_pubkey":"cHVi","ws_url":"wss://x/ws","api_endpoint":"https://x"},` +
		`"autologon":{"username":"Administrator","password":"0123456789abcdefGH"},"extra":{"kept":true}}` + "\n"
	var method, path, body, ctype string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		method, path, body, ctype = r.Method, r.URL.EscapedPath(), string(b), r.Header.Get("Content-Type")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(answer))
	}))
	defer srv.Close()
	c := New(srv.URL, "k")

	p, err := c.ProvisioningPayload(context.Background(), "h/1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if method != "POST" || path != "/v1/api/hosts/h%2F1/provisioning-payload" || body != "" || ctype != "" {
		t.Errorf("sent %s %s %q (%q), want POST without a body", method, path, body, ctype)
	}
	if p.SchemaVersion != 1 || p.Hub.HostID != "h1" || p.Hub.BID != 7 || p.Hub.AgentPubkey != "cHVi" || p.Autologon == nil ||
		p.Autologon.Password != "0123456789abcdefGH" || string(p.Raw) != strings.TrimSpace(answer) {
		t.Errorf("payload %+v raw %s", p, p.Raw)
	}

	if _, err := c.ProvisioningPayload(context.Background(), "h1", &Autologon{}); err != nil {
		t.Fatal(err)
	}
	if body != `{"autologon":{}}` || ctype != "application/json" {
		t.Errorf("generated autologon sent %q (%q)", body, ctype)
	}
	if _, err := c.ProvisioningPayload(context.Background(), "h1", &Autologon{Username: "ops", Password: "0123456789abcdef"}); err != nil {
		t.Fatal(err)
	}
	if body != `{"autologon":{"username":"ops","password":"0123456789abcdef"}}` {
		t.Errorf("given autologon sent %q", body)
	}
}

// TestProvisioningPayloadAgainstARealHub: the payload of a new host, its
// autologon, and the hub's refusals as SDK errors.
func TestProvisioningPayloadAgainstARealHub(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	u := h.Register(t)
	var key struct{ Secret string }
	h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/api-keys", map[string]string{"name": "sdk"}).Want(t, 200, "").JSON(t, &key)
	c := New(h.URL, key.Secret)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	host, cr, err := c.CreateHost(ctx, "template", 0, true)
	if err != nil {
		t.Fatal(err)
	}

	p, err := c.ProvisioningPayload(ctx, host.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.SchemaVersion != 1 || p.Hub.HostID != host.ID || p.Hub.SecretKey != cr.SecretKey || p.Hub.InstallToken == cr.InstallToken ||
		"ed25519:"+p.Hub.AgentPubkey == cr.AgentPubkey || p.Hub.WSURL != cr.WSURL || p.Autologon != nil || len(p.Raw) >= 1024 {
		t.Errorf("payload %+v (%d bytes) for credentials %+v", p, len(p.Raw), cr)
	}
	if _, err := agentproto.ParsePayload(p.Raw); err != nil {
		t.Errorf("the agent's validator refuses Raw: %v", err)
	}
	var again ProvisioningPayload
	if err := json.Unmarshal(p.Raw, &again); err != nil || again.Hub != p.Hub {
		t.Errorf("Raw %s does not decode to the payload: %v", p.Raw, err)
	}

	p, err = c.ProvisioningPayload(ctx, host.ID, &Autologon{})
	if err != nil || p.Autologon == nil || p.Autologon.Username != "Administrator" || len(p.Autologon.Password) < 16 {
		t.Fatalf("generated autologon %+v, %v", p.Autologon, err)
	}
	p, err = c.ProvisioningPayload(ctx, host.ID, &Autologon{Username: "ops", Password: "correct horse battery"})
	if err != nil || *p.Autologon != (PayloadAutologon{Username: "ops", Password: "correct horse battery"}) {
		t.Fatalf("given autologon %+v, %v", p.Autologon, err)
	}
	_, err = c.ProvisioningPayload(ctx, host.ID, &Autologon{Password: "too short"})
	if e, ok := err.(*Error); !ok || e.Status != 400 || e.Code != "invalid_body" {
		t.Errorf("short password: %v, want 400 invalid_body", err)
	}
	_, err = c.ProvisioningPayload(ctx, "00000000-0000-4000-8000-000000000000", nil)
	if !IsNotFound(err) {
		t.Errorf("unknown host: %v, want not_found", err)
	}
}
