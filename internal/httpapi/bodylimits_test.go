package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/hubtest"
)

// TestEveryJSONRouteLimitsItsBody walks every operation of the OpenAPI
// document that takes a JSON body and sends it, with the credential its
// group takes, a body over 1 MiB (declared, and chunked with no length)
// and a small one nested deeper than 64 levels: 413 body_too_large and
// 400 invalid_body, never a 500, and nothing changes.
func TestEveryJSONRouteLimitsItsBody(t *testing.T) {
	t.Parallel()
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_PAYMENT_DUMMY", "1"))
	u := h.Register(t)
	owner, _ := h.Admin(t, "owner")
	c := h.Client(t)
	var key struct {
		Secret string `json:"secret"`
	}
	c.As(u.AccessToken).Do("POST", "/v1/user/api-keys", map[string]string{"name": "walk"}).Want(t, 200, "").JSON(t, &key)
	c.As(u.AccessToken).Do("POST", "/v1/user/hosts", map[string]any{"name": "walk"}).Want(t, 200, "")

	// What a route that acted on a body would have changed.
	snapshot := func() map[string]string {
		out := map[string]string{}
		for _, p := range []string{"/v1/admin/audit-logs", "/v1/admin/admins", "/v1/admin/pricing-rules", "/v1/admin/gateway-versions", "/v1/admin/recharges"} {
			out[p] = string(c.As(owner).Do("GET", p, nil).Want(t, 200, "").Body)
		}
		for _, p := range []string{"/v1/user/hosts", "/v1/user/billing/events", "/v1/user/billing/recharges", "/v1/user/filters", "/v1/user/tags", "/v1/user/me"} {
			out[p] = string(c.As(u.AccessToken).Do("GET", p, nil).Want(t, 200, "").Body)
		}
		return out
	}
	before := snapshot()

	big := `{"x":"` + strings.Repeat("a", 1<<20) + `"}`
	deep := `{"x":` + strings.Repeat("[", 65) + strings.Repeat("]", 65) + `}`
	send := func(method, path, token, body string, chunked bool) *hubtest.Response {
		var rd io.Reader = strings.NewReader(body)
		if chunked {
			rd = io.MultiReader(rd) // no length known: sent chunked
		}
		req, err := http.NewRequest(method, h.URL+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		if chunked {
			req.ContentLength = -1
		}
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return c.Send(req)
	}

	walked := 0
	for path, item := range h.Server().OpenAPI().Paths {
		for method, op := range map[string]*opInfo{
			"POST": opOf(item.Post), "PUT": opOf(item.Put), "PATCH": opOf(item.Patch), "DELETE": opOf(item.Delete),
		} {
			if op == nil || !op.json {
				continue
			}
			walked++
			concrete := concretePath(path)
			token, authed := "", true
			switch {
			case strings.HasPrefix(path, "/v1/user/"):
				token = u.AccessToken
			case strings.HasPrefix(path, "/v1/admin/"):
				token = owner
			case strings.HasPrefix(path, "/v1/api/"):
				token = key.Secret
			case strings.HasPrefix(path, "/v1/internal/agent/") && !strings.HasSuffix(path, "/online"):
				authed = false // an agent token: refused (401) before the body is read
			}
			name := method + " " + path + " (" + op.id + ")"
			// Declared over the limit: refused before anything else.
			if r := send(method, concrete, token, big, false); r.Status != 413 || r.Code() != "body_too_large" {
				t.Errorf("%s, 1 MiB+ declared: %d %.200s, want 413 body_too_large", name, r.Status, r.Body)
			}
			// Without its credential a route may refuse before it reads
			// the body (401); with one, or if it reads first, the body's
			// limit answers.
			want := func(r *hubtest.Response, status int, code, what string) {
				t.Helper()
				if (r.Status == status && r.Code() == code) || (!authed && r.Status == 401) {
					return
				}
				t.Errorf("%s, %s: %d %.200s, want %d %s", name, what, r.Status, r.Body, status, code)
			}
			want(send(method, concrete, token, big, true), 413, "body_too_large", "1 MiB+ chunked")
			want(send(method, concrete, token, deep, false), 400, "invalid_body", "65 levels deep")
		}
	}
	if walked < 60 {
		t.Fatalf("walked %d operations with a JSON body; the document has more", walked)
	}
	after := snapshot()
	for p, b := range before {
		if after[p] != b {
			t.Errorf("%s changed:\nbefore %s\nafter  %s", p, b, after[p])
		}
	}
	t.Logf("%d operations with a JSON body refuse a body over 1 MiB (declared and chunked) and one nested 65 deep", walked)
}

// concretePath fills an OpenAPI path's parameters with values that name
// nothing that exists.
func concretePath(path string) string {
	r := strings.NewReplacer("{id}", "00000000-0000-4000-8000-0000000000aa", "{delivery_id}", "wd_00000000000000000000000000",
		"{sid}", "s1", "{ver}", "9.9.9", "{provider}", "dummy", "{order_no}", "none")
	return r.Replace(path)
}

// opInfo is what the walk needs of an operation.
type opInfo struct {
	id   string
	json bool // it takes a JSON request body
}

func opOf(o *huma.Operation) *opInfo {
	if o == nil {
		return nil
	}
	info := &opInfo{id: o.OperationID}
	if o.RequestBody != nil {
		_, info.json = o.RequestBody.Content["application/json"]
	}
	return info
}
