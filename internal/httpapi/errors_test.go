package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

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
		{"unknown route", "GET", "/nope", nil, 404, "not_found"},
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
