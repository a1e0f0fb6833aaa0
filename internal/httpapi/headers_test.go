package httpapi_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"hostgate/internal/agentproto"
	"hostgate/internal/hubtest"
)

// apiHeaders are the headers every answer of the hub carries: nothing is
// cached (many answers hold tokens, secrets or credentials), nothing is
// sniffed, framed or given a Referer.
var apiHeaders = map[string]string{
	"Cache-Control":           "no-store",
	"X-Content-Type-Options":  "nosniff",
	"X-Frame-Options":         "DENY",
	"Referrer-Policy":         "no-referrer",
	"Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
}

// TestResponsesCarrySecurityHeaders walks the routes that hand out
// secrets, the raw handlers and every kind of error, and checks the
// headers of each answer.
func TestResponsesCarrySecurityHeaders(t *testing.T) {
	exe := []byte("MZ pretend agent executable")
	sum := sha256.Sum256(exe)
	dl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(exe) }))
	t.Cleanup(dl.Close)
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("GATEWAY_EXE_URL", dl.URL+"/agent.exe"),
		hubtest.WithEnv("GATEWAY_EXE_SHA256", hex.EncodeToString(sum[:])),
		hubtest.WithEnv("HOSTGATE_PAYMENT_DUMMY", "1"))
	u := h.Register(t)
	key := apiKey(t, h, u.AccessToken)
	hs, c := createWithCreds(t, h, key)
	adminTok, _ := h.Admin(t, "owner")
	hostPath := "/v1/user/hosts/" + hs.ID

	tests := []struct {
		name, method, path string
		token              string
		body               any
		status             int
	}{
		{"health", "GET", "/healthz", "", nil, 200},
		{"readiness", "GET", "/readyz", "", nil, 200},
		{"public health", "GET", "/v1/public/health", "", nil, 200},
		{"openapi (raw)", "GET", "/v1/openapi.json", "", nil, 200},
		{"register", "POST", "/v1/public/auth/register", "", map[string]string{"email": hubtest.UniqueEmail(), "password": hubtest.Password}, 200},
		{"refresh", "POST", "/v1/public/auth/refresh", "", map[string]string{"refresh_token": u.RefreshToken}, 200},
		{"admin login", "POST", "/v1/admin/auth/login", "", map[string]string{"username": "nobody", "password": "x"}, 401},
		{"step-up", "POST", "/v1/admin/auth/step-up", adminTok, map[string]string{"password": hubtest.Password}, 200},
		{"me", "GET", "/v1/user/me", u.AccessToken, nil, 200},
		{"api key creation", "POST", "/v1/user/api-keys", u.AccessToken, map[string]string{"name": "k"}, 200},
		{"host creation with credentials", "POST", "/v1/api/hosts", key, map[string]any{"name": "h2", "with_credentials": true}, 201},
		{"install token", "POST", hostPath + "/install-token", u.AccessToken, nil, 200},
		{"user installer", "GET", hostPath + "/installer", u.AccessToken, nil, 200},
		{"api installer", "GET", "/v1/api/hosts/" + hs.ID + "/installer?format=ps1", key, nil, 200},
		{"rotate secret", "POST", hostPath + "/rotate-secret", u.AccessToken, nil, 200},
		{"l1 config", "PUT", hostPath + "/l1-config", u.AccessToken, map[string]any{"bid": hs.BID, "secret_key": strings.Repeat("a1", 16), "url": ""}, 200},
		{"terminal ticket", "POST", hostPath + "/terminal/ticket", u.AccessToken, nil, 200},
		{"agent online", "POST", agentproto.PathOnline, "", agentproto.OnlineRequest{HostID: hs.ID, InstallToken: c.InstallToken}, 401},
		{"gateway (raw)", "POST", "/gateway?bid=1", "", "not encrypted", 200},
		{"payment webhook (raw)", "POST", "/v1/public/webhooks/payment/dummy", "", map[string]any{"order_no": "none"}, 400},
		{"terminal websocket (raw)", "GET", hostPath + "/terminal/ws", "", nil, 401},
		{"agent download list", "GET", "/v1/public/agent/downloads", "", nil, 200},
		{"agent checksums (raw)", "GET", "/download/SHA256SUMS", "", nil, 200},
		{"unknown agent download (raw)", "GET", "/download/hostgate-agent-linux-amd64", "", nil, 404},
		{"unknown route", "POST", "/nope", "", nil, 404},
		{"unknown route under an API prefix", "GET", "/download/", "", nil, 404},
		{"unknown v1 route", "GET", "/v1/public/nope", "", nil, 404},
		{"unclean path", "GET", "/v1/user/../admin/users", "", nil, 404},
		{"no credential", "GET", "/v1/user/me", "", nil, 401},
		{"bad credential", "GET", "/v1/user/me", "nonsense", nil, 401},
		{"wrong method", "DELETE", "/v1/public/auth/login", "", nil, 405},
		{"bad body", "POST", "/v1/public/auth/login", "", `{"email":`, 400},
		{"oversize body", "POST", "/v1/public/auth/login", "", strings.Repeat("a", 2<<20), 413},
		{"another's host", "GET", hostPath, h.Register(t).AccessToken, nil, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.Client(t).As(tt.token).Do(tt.method, tt.path, tt.body)
			if r.Status != tt.status {
				t.Errorf("status %d %.200s, want %d", r.Status, r.Body, tt.status)
			}
			for name, want := range apiHeaders {
				if got := r.Header.Get(name); got != want {
					t.Errorf("%s: %q, want %q", name, got, want)
				}
			}
		})
	}
}
