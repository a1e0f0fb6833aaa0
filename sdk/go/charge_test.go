package hostgate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"hostgate/internal/hubtest"
)

// TestChargeFromHeaders: the client hook and a call's ReportCharge get
// what the answer names, successful or not; an error carries it too; an
// answer naming none reports nothing.
func TestChargeFromHeaders(t *testing.T) {
	var charged, balance string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if charged != "" {
			w.Header().Set(HeaderCharged, charged)
		}
		if balance != "" {
			w.Header().Set(HeaderBalance, balance)
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/api/hosts/h1/process/shell" {
			w.WriteHeader(504)
			w.Write([]byte(`{"error":"agent_timeout","message":"late"}`))
			return
		}
		w.Write([]byte(`{"items":[]}`))
	}))
	defer srv.Close()
	var hooked []Charge
	c := New(srv.URL, "ak_x.y", WithChargeHook(func(ch Charge) { hooked = append(hooked, ch) }))

	charged, balance = "0.5", "99.5"
	var one Charge
	if _, err := c.ListHosts(ReportCharge(t.Context(), func(ch Charge) { one = ch })); err != nil {
		t.Fatal(err)
	}
	want := Charge{Tokens: 0.5, Balance: 99.5, HasBalance: true, ChargedText: "0.5", BalanceText: "99.5"}
	if one != want || len(hooked) != 1 || hooked[0] != want {
		t.Errorf("ReportCharge got %+v, hook %+v; want %+v", one, hooked, want)
	}

	charged, balance = "5", "94.5"
	_, err := c.Shell(t.Context(), "h1", "/bin/sh", "-c true", 5)
	e, ok := errors.AsType[*Error](err)
	if !ok || !IsAgentTimeout(err) || e.Charge == nil || e.Charge.Tokens != 5 || e.Charge.BalanceText != "94.5" {
		t.Errorf("504 after the charge: %v, charge %+v", err, e)
	}

	charged, balance = "0", "" // free mode
	hooked = nil
	c.ListHosts(t.Context())
	if len(hooked) != 1 || hooked[0] != (Charge{ChargedText: "0"}) {
		t.Errorf("free mode: hook %+v, want charged 0 without a balance", hooked)
	}

	charged = "" // a free route
	hooked = nil
	c.ListHosts(t.Context())
	if len(hooked) != 0 {
		t.Errorf("an answer naming no charge reported %+v", hooked)
	}
}

// TestInstallerDownload: bytes, file name and content type of each
// format, the format in the query, and the refusal as an *Error.
func TestInstallerDownload(t *testing.T) {
	var query string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		query = r.URL.RawQuery
		switch r.URL.Query().Get("format") {
		case "ps1":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Content-Disposition", `attachment; filename="install-h1.ps1"`)
			w.Write([]byte("# ps1"))
		case "json":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`"TVo="`))
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(503)
			w.Write([]byte(`{"error":"exe_not_configured","message":"no exe"}`))
		}
	}))
	defer srv.Close()
	c := New(srv.URL, "ak_x.y")
	in, err := c.Installer(t.Context(), "h1", InstallerPS1)
	if err != nil || string(in.Content) != "# ps1" || in.FileName != "install-h1.ps1" ||
		in.ContentType != "text/plain; charset=utf-8" || query != "format=ps1" {
		t.Errorf("ps1: %+v, %v (query %q)", in, err, query)
	}
	if in, err := c.Installer(t.Context(), "h1", "json"); err != nil || string(in.Content) != "MZ" {
		t.Errorf("a JSON base64 answer: %+v, %v", in, err)
	}
	if _, err := c.Installer(t.Context(), "h1", ""); ErrorCode(err) != "exe_not_configured" || query != "" {
		t.Errorf("exe without an agent: %v (query %q)", err, query)
	}
}

// TestChargeAndInstallerAgainstARealHub: the charge a real hub names
// reaches the SDK; the installer downloads in each format.
func TestChargeAndInstallerAgainstARealHub(t *testing.T) {
	exe := []byte("MZ pretend agent executable")
	sum := sha256.Sum256(exe)
	dl := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(exe) }))
	t.Cleanup(dl.Close)
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("GATEWAY_EXE_URL", dl.URL+"/agent.exe"),
		hubtest.WithEnv("GATEWAY_EXE_SHA256", hex.EncodeToString(sum[:])))
	u := h.Register(t)
	var key struct{ Secret string }
	h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/api-keys", map[string]string{"name": "sdk"}).Want(t, 200, "").JSON(t, &key)
	fin, _ := h.Admin(t, "finance")
	h.Client(t).As(fin).Do("POST", "/v1/admin/users/"+u.User.ID+"/balance/adjust",
		map[string]any{"tokens": 10, "reason": "sdk test"}).Want(t, 200, "")
	host := h.ConnectAgent(t, u.User.ID, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var hooked []Charge
	c := New(h.URL, key.Secret, WithChargeHook(func(ch Charge) { hooked = append(hooked, ch) }))

	if _, err := c.MakeDir(ctx, host, filepath.Join(t.TempDir(), "d")); err != nil {
		t.Fatal(err)
	}
	_, err := c.ReadString(ctx, host, filepath.Join(t.TempDir(), "missing"))
	e, _ := errors.AsType[*Error](err)
	if e == nil || e.Charge == nil || e.Charge.ChargedText != "0.5" || e.Charge.BalanceText != "8.5" {
		t.Errorf("a failure after the charge: %v, %+v", err, e)
	}
	if len(hooked) != 2 || hooked[0].Tokens != 1 || hooked[0].Balance != 9 || hooked[1].Balance != 8.5 {
		t.Errorf("charges %+v, want 1 (balance 9) then 0.5 (balance 8.5)", hooked)
	}

	for _, f := range []struct{ format, ext, ctype string }{
		{InstallerPS1, "ps1", "text/plain; charset=utf-8"},
		{InstallerCMD, "cmd", "application/octet-stream"},
		{"", "exe", "application/octet-stream"},
	} {
		in, err := c.Installer(ctx, host, f.format)
		if err != nil || len(in.Content) == 0 || in.FileName != "install-"+host+"."+f.ext || in.ContentType != f.ctype {
			t.Errorf("installer %q: %s %q %d bytes, %v", f.format, in.FileName, in.ContentType, len(in.Content), err)
		}
	}
	if _, err := c.Installer(ctx, host, "zip"); ErrorCode(err) != "invalid_query" {
		t.Errorf("installer zip: %v, want invalid_query", err)
	}
}
