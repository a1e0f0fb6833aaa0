package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hostgate/internal/hubtest"
)

// TestJSONBodyWhateverContentType: a body that parses as JSON is taken as
// JSON whatever its Content-Type (curl -d sends a form type), while a
// non-JSON body of an explicit non-JSON type stays 415. A browser page of
// another site keeps the 415 for a JSON body of a form type (a form can
// send one without a preflight), and with the console cookie it is
// refused before any handler; the payment webhook still reads its form.
func TestJSONBodyWhateverContentType(t *testing.T) {
	h := hubtest.Start(t, hubtest.Embedded)
	post := func(path, ct, body string, hdr map[string]string) *hubtest.Response {
		t.Helper()
		req, err := http.NewRequest("POST", h.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		return h.Client(t).Send(req)
	}
	register := func(email string) string {
		return `{"email":"` + email + `","password":"` + hubtest.Password + `"}`
	}

	// curl -d '{…}' $H/v1/public/auth/register, as curl sends it.
	email := hubtest.UniqueEmail()
	var auth struct {
		AccessToken string `json:"access_token"`
		User        struct{ Email string }
	}
	post("/v1/public/auth/register", "application/x-www-form-urlencoded", register(email), nil).Want(t, 200, "").JSON(t, &auth)
	if auth.User.Email != email || auth.AccessToken == "" {
		t.Fatalf("registered %+v", auth)
	}
	for _, ct := range []string{"text/plain", "text/plain; charset=utf-8", "application/octet-stream", ""} {
		post("/v1/public/auth/register", ct, register(hubtest.UniqueEmail()), nil).Want(t, 200, "")
	}
	// A body that does not parse keeps its type: 415 for a non-JSON
	// type, 400 for JSON.
	post("/v1/public/auth/register", "application/x-www-form-urlencoded", "email=a%40b.c&password=x", nil).
		Want(t, 415, "unsupported_media_type")
	post("/v1/public/auth/register", "text/plain", "hello", nil).Want(t, 415, "unsupported_media_type")
	post("/v1/public/auth/register", "application/json", "hello", nil).Want(t, 400, "invalid_body")
	// An API client's Bearer call with a form type works too.
	key := apiKey(t, h, auth.AccessToken)
	post("/v1/api/hosts", "application/x-www-form-urlencoded", `{"name":"curl host"}`,
		map[string]string{"Authorization": "Bearer " + key}).Want(t, 201, "")

	// Another site's form: no JSON by a form type, registered or not.
	for _, hdr := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
		{"Sec-Fetch-Site": "same-site"},
		{"Origin": "https://evil.example"},
	} {
		post("/v1/public/auth/register", "text/plain", register(hubtest.UniqueEmail()), hdr).Want(t, 415, "unsupported_media_type")
		post("/v1/public/auth/login", "application/x-www-form-urlencoded", register(email), hdr).Want(t, 415, "unsupported_media_type")
	}
	// The hub's own page may (its fetches send JSON anyway).
	post("/v1/public/auth/login", "text/plain", register(email), map[string]string{"Sec-Fetch-Site": "same-origin"}).Want(t, 200, "")

	// The console cookie from another site's form: refused, nothing made.
	req, _ := http.NewRequest("POST", h.URL+"/v1/user/api-keys", strings.NewReader(`{"name":"forged"}`))
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://evil.example")
	req.AddCookie(&http.Cookie{Name: "gw_at", Value: auth.AccessToken})
	if r := h.Client(t).Send(req); r.Status < 400 {
		t.Fatalf("cross-site cookie form: %d %s", r.Status, r.Body)
	}
	var keys struct{ Items []struct{ Name string } }
	h.Client(t).As(auth.AccessToken).Do("GET", "/v1/user/api-keys", nil).Want(t, 200, "").JSON(t, &keys)
	for _, k := range keys.Items {
		if k.Name == "forged" {
			t.Fatal("a cross-site form made an API key")
		}
	}

	// The payment webhook is a raw route: its form is read as a form, by
	// the provider's rules (here: not configured), never 415.
	form := url.Values{"out_trade_no": {"HGnone"}}.Encode()
	if r := post("/v1/public/webhooks/payment/fourthparty", "application/x-www-form-urlencoded", form, nil); r.Status == 415 {
		t.Errorf("payment webhook: %d %s", r.Status, r.Body)
	}
}
