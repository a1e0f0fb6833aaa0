package l1local

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/l1"
)

const key = "3f9a1c7e5b2d4086a1e3c5b7d9f02468"

type fixture struct {
	srv   *Server
	codec *l1.Codec
	ran   atomic.Int32
	done  atomic.Int32
}

func newFixture(t *testing.T, burst int) *fixture {
	t.Helper()
	f := &fixture{}
	var err error
	if f.codec, err = l1.NewCodec(4821936602771, key); err != nil {
		t.Fatal(err)
	}
	f.srv = New(Config{
		Codec: f.codec, Nonces: l1.NewMemoryNonces(100), Burst: burst, Rate: 0.001,
		Exec: func(_ context.Context, control int64, a agentproto.ControlArgs) (json.RawMessage, error) {
			f.ran.Add(1)
			if a.Path == "fail" {
				return nil, &agentproto.Error{Code: agentproto.CodeFailed, Message: "it failed"}
			}
			return json.Marshal(map[string]string{"path": a.Path})
		},
		Done: func(int64, l1.Response) { f.done.Add(1) },
	})
	return f
}

func (f *fixture) post(t *testing.T, query, body string) (int, l1.Response) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, Path+query, strings.NewReader(body))
	w := httptest.NewRecorder()
	f.srv.Handler().ServeHTTP(w, req)
	var r l1.Response
	if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil {
		t.Fatalf("answer %q: %v", w.Body.String(), err)
	}
	return w.Code, r
}

func (f *fixture) encode(t *testing.T, c *l1.Codec, ctl int64, path string, now time.Time) string {
	t.Helper()
	b, err := c.Encode(l1.NewRequest(ctl, agentproto.ControlArgs{Path: path}, now))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGatewayCarriesOutAndAnswers(t *testing.T) {
	f := newFixture(t, 100)
	status, r := f.post(t, "?bid=4821936602771", f.encode(t, f.codec, agentproto.CtlDirMk, `C:\x`, time.Now()))
	if status != 200 || r.Code != l1.CodeOK || r.Msg != "ok" || string(r.Data) != `{"path":"C:\\x"}` {
		t.Fatalf("ok request: %d %+v", status, r)
	}
	_, r = f.post(t, "?bid=4821936602771", f.encode(t, f.codec, agentproto.CtlDirMk, "fail", time.Now()))
	if r.Code != l1.CodeFailure || r.Msg != "failed: it failed" || string(r.Data) != "null" {
		t.Fatalf("failing request: %+v", r)
	}
	_, r = f.post(t, "?bid=4821936602771", f.encode(t, f.codec, agentproto.CtlDirMk, "", time.Now()))
	if r.Code != l1.CodeFailure || !strings.Contains(r.Msg, "path") {
		t.Fatalf("bad args: %+v", r)
	}
	if f.ran.Load() != 2 || f.done.Load() != 3 {
		t.Errorf("exec ran %d times, done %d; want 2 and 3", f.ran.Load(), f.done.Load())
	}
}

// TestGatewayRefusalsAreUniform: every refusal before the request is
// carried out gets l1.Invalid(), and nothing runs.
func TestGatewayRefusalsAreUniform(t *testing.T) {
	f := newFixture(t, 100)
	other, _ := l1.NewCodec(4821936602771, strings.Repeat("a", 32))
	otherBID, _ := l1.NewCodec(1, key)
	good := f.encode(t, f.codec, agentproto.CtlDirMk, "p", time.Now())
	if _, r := f.post(t, "?bid=4821936602771", good); r.Code != l1.CodeOK {
		t.Fatalf("first send: %+v", r)
	}
	for name, tc := range map[string]struct{ query, body string }{
		"replay":       {"?bid=4821936602771", good},
		"not base64":   {"?bid=4821936602771", "%%%"},
		"empty":        {"?bid=4821936602771", ""},
		"wrong key":    {"?bid=4821936602771", f.encode(t, other, agentproto.CtlDirMk, "p", time.Now())},
		"frame bid":    {"?bid=4821936602771", f.encode(t, otherBID, agentproto.CtlDirMk, "p", time.Now())},
		"query bid":    {"?bid=1", f.encode(t, f.codec, agentproto.CtlDirMk, "p", time.Now())},
		"no bid":       {"", f.encode(t, f.codec, agentproto.CtlDirMk, "p", time.Now())},
		"stale":        {"?bid=4821936602771", f.encode(t, f.codec, agentproto.CtlDirMk, "p", time.Now().Add(-time.Hour))},
		"one bit flip": {"?bid=4821936602771", flip(good)},
		"too large":    {"?bid=4821936602771", strings.Repeat("A", l1.MaxBody+4)},
	} {
		status, r := f.post(t, tc.query, tc.body)
		if status != 200 || r.Code != l1.CodeFailure || r.Msg != l1.MsgInvalid || string(r.Data) != "null" {
			t.Errorf("%s: %d %+v, want the uniform invalid answer", name, status, r)
		}
	}
	if f.ran.Load() != 1 {
		t.Errorf("exec ran %d times, want once", f.ran.Load())
	}
}

func flip(s string) string {
	b := []byte(s)
	if b[10] == 'A' {
		b[10] = 'B'
	} else {
		b[10] = 'A'
	}
	return string(b)
}

func TestGatewayRateLimitsEachSource(t *testing.T) {
	f := newFixture(t, 3)
	for i := range 4 {
		req := httptest.NewRequest(http.MethodPost, Path+"?bid=4821936602771", strings.NewReader("x"))
		req.RemoteAddr = "192.0.2.1:1000"
		w := httptest.NewRecorder()
		f.srv.Handler().ServeHTTP(w, req)
		if want := map[bool]int{true: 200, false: 429}[i < 3]; w.Code != want {
			t.Errorf("request %d: status %d, want %d", i+1, w.Code, want)
		}
	}
	req := httptest.NewRequest(http.MethodPost, Path+"?bid=4821936602771", strings.NewReader("x"))
	req.RemoteAddr = "192.0.2.2:1000"
	w := httptest.NewRecorder()
	f.srv.Handler().ServeHTTP(w, req)
	if w.Code != 200 {
		t.Errorf("another source: status %d, want 200", w.Code)
	}
}

func TestListenAndShutdown(t *testing.T) {
	f := newFixture(t, 100)
	if err := f.srv.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + f.srv.Addr().String() + Path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", resp.StatusCode)
	}
	if err := f.srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + f.srv.Addr().String() + Path); err == nil {
		t.Error("still listening after Shutdown")
	}
}
