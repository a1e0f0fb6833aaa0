package hubtest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Client makes JSON requests to a hub and fails the test on transport errors.
type Client struct {
	t     testing.TB
	base  string
	http  *http.Client
	token string
}

// Client returns an anonymous client of h.
func (h *Hub) Client(t testing.TB) *Client {
	return &Client{t: t, base: h.URL, http: &http.Client{Timeout: 30 * time.Second}}
}

// As returns a copy of c that sends token as its bearer credential.
func (c *Client) As(token string) *Client {
	d := *c
	d.token = token
	return &d
}

// Response is a finished request.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends body (nil, a string sent as-is, or a value encoded as JSON).
func (c *Client) Do(method, path string, body any) *Response {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			c.t.Fatalf("encode body: %v", err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatalf("new request: %v", err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return c.Send(req)
}

// Send sends a prepared request.
func (c *Client) Send(req *http.Request) *Response {
	c.t.Helper()
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("read body: %v", err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// JSON decodes the body into v.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %q: %v", r.Body, err)
	}
}

// Code returns the error code of an error answer ("" if there is none).
func (r *Response) Code() string {
	var e struct{ Error string }
	_ = json.Unmarshal(r.Body, &e)
	return e.Error
}

// Want fails the test unless the answer has status and, for errors, code.
func (r *Response) Want(t testing.TB, status int, code string) *Response {
	t.Helper()
	if r.Status != status || (code != "" && r.Code() != code) {
		t.Fatalf("got %d %s, want %d %s", r.Status, r.Body, status, code)
	}
	return r
}

// UniqueEmail returns an address no other test uses.
func UniqueEmail() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "user-" + hex.EncodeToString(b) + "@example.com"
}

// Password is a password the rules accept.
const Password = "correct horse battery"

// Auth is the decoded AuthResp.
type Auth struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	AccessTTL    int    `json:"access_ttl_s"`
	User         struct {
		ID          string `json:"id"`
		Email       string `json:"email"`
		DisplayName string `json:"display_name"`
		Status      string `json:"status"`
	} `json:"user"`
}

// Register creates a user with a fresh email and returns its tokens.
func (h *Hub) Register(t testing.TB) Auth {
	t.Helper()
	var a Auth
	h.Client(t).Do("POST", "/v1/public/auth/register", map[string]string{"email": UniqueEmail(), "password": Password}).
		Want(t, 200, "").JSON(t, &a)
	return a
}

// Admin creates an admin with role and returns its access token.
func (h *Hub) Admin(t testing.TB, role string) (token, id string) {
	t.Helper()
	name := "adm-" + strings.ToLower(UniqueEmail()[5:17])
	a, err := h.Admins.Create(t.Context(), name, Password, adminRole(role))
	if err != nil {
		t.Fatalf("create admin: %v", err)
	}
	var out struct {
		AccessToken string `json:"access_token"`
	}
	h.Client(t).Do("POST", "/v1/admin/auth/login", map[string]string{"username": name, "password": Password}).
		Want(t, 200, "").JSON(t, &out)
	return out.AccessToken, a.ID
}
