package httpapi_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"hostgate/internal/hubtest"
)

// TestEveryFailureIsAnErrorObject sends requests that fail in each layer
// (mux, body reader, validator, handler) and checks the envelope.
func TestEveryFailureIsAnErrorObject(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	c := h.Client(t)
	tests := []struct {
		name, method, path string
		body               any
		status             int
		code               string
	}{
		{"unknown route", "POST", "/nope", nil, 404, "not_found"},
		{"unknown v1 path", "GET", "/v1/nope", nil, 404, "not_found"},
		{"unknown path under /install/", "GET", "/install/", nil, 404, "not_found"},
		{"unknown v1 route", "GET", "/v1/public/nope", nil, 404, "not_found"},
		{"wrong method", "DELETE", "/v1/public/auth/login", nil, 405, "method_not_allowed"},
		{"malformed json", "POST", "/v1/public/auth/login", `{"email":`, 400, "invalid_body"},
		{"not an object", "POST", "/v1/public/auth/login", `[1,2]`, 400, "invalid_body"},
		{"missing field", "POST", "/v1/public/auth/login", `{"email":"a@example.com"}`, 400, "invalid_body"},
		{"unknown field", "POST", "/v1/public/auth/login", `{"email":"a@example.com","password":"x","admin":true}`, 400, "invalid_body"},
		{"wrong type", "POST", "/v1/public/auth/login", `{"email":5,"password":"x"}`, 400, "invalid_body"},
		{"empty body", "POST", "/v1/public/auth/login", nil, 400, "invalid_body"},
		{"oversize body", "POST", "/v1/public/auth/register", `{"email":"` + strings.Repeat("a", 2<<20) + `"}`, 413, "body_too_large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Do(tt.method, tt.path, tt.body).Want(t, tt.status, tt.code)
			var e map[string]any
			if err := json.Unmarshal(r.Body, &e); err != nil || len(e) != 2 || e["message"] == "" {
				t.Errorf("body %s is not exactly {error, message}", r.Body)
			}
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			if r.Header.Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id header")
			}
		})
	}
	r := c.Do("PUT", "/v1/public/auth/login", nil)
	if allow := r.Header.Get("Allow"); allow != "POST" {
		t.Errorf("405 Allow = %q, want POST", allow)
	}
}

func TestRequestIDThreadsThrough(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	req, _ := http.NewRequest("GET", h.URL+"/healthz", nil)
	req.Header.Set("X-Request-Id", "proxy-abc-12345")
	if got := h.Client(t).Send(req).Header.Get("X-Request-Id"); got != "proxy-abc-12345" {
		t.Errorf("X-Request-Id = %q, want the caller's", got)
	}
	req.Header.Set("X-Request-Id", "bad id\twith junk")
	if got := h.Client(t).Send(req).Header.Get("X-Request-Id"); got == "" || strings.Contains(got, " ") {
		t.Errorf("X-Request-Id = %q, want a fresh clean id", got)
	}
}

func TestHealth(t *testing.T) {
	hubtest.Run(t, func(t *testing.T, mode hubtest.Mode) {
		h := hubtest.Start(t, mode)
		c := h.Client(t)
		for _, p := range []string{"/healthz", "/v1/public/health"} {
			var out struct{ Status string }
			c.Do("GET", p, nil).Want(t, 200, "").JSON(t, &out)
			if out.Status != "ok" {
				t.Errorf("%s status = %q, want ok", p, out.Status)
			}
		}
		var ready struct{ Status, PG, Redis string }
		c.Do("GET", "/readyz", nil).Want(t, 200, "").JSON(t, &ready)
		want := map[hubtest.Mode][2]string{
			hubtest.Embedded: {"sqlite: ok", "in-process: ok"},
			hubtest.Scaled:   {"ok", "ok"},
		}[mode]
		if ready.Status != "ok" || ready.PG != want[0] || ready.Redis != want[1] {
			t.Errorf("readyz = %+v, want ok with pg %q and redis %q", ready, want[0], want[1])
		}
	})
}

// TestUncleanPathsAreNotRedirected checks that a path with '.', '..' or
// empty segments gets the JSON 404 of an unknown route, not the redirect to
// the cleaned path that Go's ServeMux answers with: a hub path is only
// ever answered as written.
func TestUncleanPathsAreNotRedirected(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	user := h.Register(t)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tt := range []struct{ method, path string }{
		{"GET", "/v1/user/../admin/users"},
		{"GET", "/v1//user/me"},
		{"GET", "/v1/user/./me"},
		{"GET", "/v1/user/%2e%2e/admin/users"},
		{"GET", "/v1/user/%2E%2E/%2e%2e/healthz"},
		{"GET", "//v1/user/me"},
		{"GET", "/v1/user/me/."},
		{"GET", "/v1/public/../../healthz"},
		{"POST", "/v1/public/auth/./login"},
		{"GET", "/healthz/../readyz"},
	} {
		for _, token := range []string{"", user.AccessToken} {
			name := tt.method + " " + tt.path
			if token != "" {
				name += " (signed in)"
			}
			t.Run(name, func(t *testing.T) {
				req, err := http.NewRequest(tt.method, h.URL+tt.path, strings.NewReader(`{}`))
				if err != nil {
					t.Fatal(err)
				}
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				resp, err := noFollow.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var p struct{ Error, Message string }
				body, _ := io.ReadAll(resp.Body)
				if err := json.Unmarshal(body, &p); err != nil || resp.StatusCode != 404 || p.Error != "not_found" || p.Message == "" {
					t.Errorf("got %d %s, want 404 not_found", resp.StatusCode, body)
				}
				if loc := resp.Header.Get("Location"); loc != "" {
					t.Errorf("Location: %s, want none", loc)
				}
			})
		}
	}
}

// TestErrorsBeforeTheHub pins down what docs/api.md says of the requests
// Go's HTTP server refuses before any hub handler runs: plain text, not
// JSON, and the connection closed.
func TestErrorsBeforeTheHub(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	addr := strings.TrimPrefix(h.URL, "http://")
	for _, tt := range []struct{ name, request, wantStatus, wantBody string }{
		{"oversized headers", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 32<<10) + "\r\n\r\n",
			"HTTP/1.1 431 Request Header Fields Too Large", "431 Request Header Fields Too Large"},
		{"malformed escape", "GET /v1/%zz HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 400 Bad Request", "400 Bad Request"},
		{"malformed request line", "NOT HTTP\r\n\r\n", "HTTP/1.1 400 Bad Request", "400 Bad Request"},
		{"no Host", "GET /healthz HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request: missing required Host header",
			"400 Bad Request: missing required Host header"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			go func() { _, _ = io.WriteString(conn, tt.request) }()
			resp, err := io.ReadAll(conn)
			if len(resp) == 0 {
				t.Fatalf("no answer: %v", err)
			}
			head, body, _ := strings.Cut(string(resp), "\r\n\r\n")
			if status, _, _ := strings.Cut(head, "\r\n"); status != tt.wantStatus || body != tt.wantBody {
				t.Errorf("got %q / %q, want %q / %q", status, body, tt.wantStatus, tt.wantBody)
			}
			if !strings.Contains(head, "Content-Type: text/plain; charset=utf-8") || !strings.Contains(head, "Connection: close") {
				t.Errorf("headers %q, want plain text and Connection: close", head)
			}
		})
	}
}
