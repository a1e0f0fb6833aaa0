package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testKey  = "ak_test.secret"
	hostID   = "0b6d6f5e-8f0a-4c39-9d1e-2f3a4b5c6d7e"
	hostName = "web-1"
)

// fakeHub answers the client API routes the CLI uses the way the hub
// does, and records what it was sent.
type fakeHub struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	calls     []string       // "METHOD path"
	lastBody  map[string]any // the last request's JSON body
	hostOS    string
	shell     map[string]any // the answer to process/shell
	failWith  int            // answer every operation with this status
	deleted   bool
	termIn    strings.Builder // what the session was sent
	termOut   chan string     // output the session hands out
	termEnd   *int            // exit code once termOut is drained and closed
	resizes   []string
	closed    bool
	histories [][]map[string]any // successive webhook histories
	// charge is the X-Hostgate-Charged and X-Hostgate-Balance of the
	// answers of operations ("" for none).
	charge [2]string
	// routes answers the routes beyond the hosts' (jobs_test.go): true
	// when it answered.
	routes func(w http.ResponseWriter, r *http.Request, body map[string]any) bool
}

func newFakeHub(t *testing.T) *fakeHub {
	f := &fakeHub{t: t, hostOS: "linux", termOut: make(chan string, 16)}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeHub) host() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return map[string]any{"id": hostID, "user_id": "u1", "name": hostName, "bid": 7, "listen_port": 23456,
		"os": f.hostOS, "status": "active", "online": true, "created_at": "2026-01-02T03:04:05Z",
		"tags": map[string]string{"env": "prod", "role": ""}}
}

func creds() map[string]any {
	return map[string]any{"host_id": hostID, "bid": 7, "secret_key": "sk", "install_token": "it_1",
		"install_token_expires_at": "2026-01-03T00:00:00Z", "install_command": map[string]string{"shell": "curl x | sudo sh"}}
}

// set changes the fake's state under its lock.
func (f *fakeHub) set(change func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change()
}

// body is the last request's JSON body.
func (f *fakeHub) body() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastBody
}

func (f *fakeHub) called(call string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.calls {
		if c == call {
			return true
		}
	}
	return false
}

func (f *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(b, &body)
	f.lastBody = body
	fail := f.failWith
	charge := f.charge
	routes := f.routes
	f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+testKey {
		writeJSON(w, 401, map[string]string{"error": "unauthorized", "message": "invalid API key"})
		return
	}
	if routes != nil && routes(w, r, body) {
		return
	}
	p := strings.TrimPrefix(r.URL.Path, "/v1/api/hosts")
	if charge[0] != "" && (strings.Contains(p, "/process/") || strings.Contains(p, "/files/")) {
		w.Header().Set("X-Hostgate-Charged", charge[0])
		if charge[1] != "" {
			w.Header().Set("X-Hostgate-Balance", charge[1])
		}
	}
	if strings.HasPrefix(r.URL.Path, "/v1/user/hosts/"+hostID+"/webhook-deliveries") {
		f.serveHistory(w, r)
		return
	}
	switch {
	case r.Method == "GET" && p == "":
		items := []any{}
		f.mu.Lock()
		deleted := f.deleted
		f.mu.Unlock()
		if !deleted {
			items = append(items, f.host())
		}
		writeJSON(w, 200, map[string]any{"items": items})
	case r.Method == "POST" && p == "":
		out := map[string]any{"host": f.host()}
		if body["with_credentials"] == true {
			out["credentials"] = creds()
		}
		writeJSON(w, 201, out)
	case !strings.HasPrefix(p, "/"+hostID):
		writeJSON(w, 404, map[string]string{"error": "not_found", "message": "host not found"})
	case fail != 0:
		code := map[int]string{402: "insufficient_balance", 409: "host_offline"}[fail]
		writeJSON(w, fail, map[string]string{"error": code, "message": "the balance does not cover the call"})
	default:
		f.serveHost(w, r, strings.TrimPrefix(p, "/"+hostID), body)
	}
}

func (f *fakeHub) serveHost(w http.ResponseWriter, r *http.Request, p string, body map[string]any) {
	switch {
	case r.Method == "GET" && p == "":
		writeJSON(w, 200, f.host())
	case r.Method == "DELETE" && p == "":
		f.mu.Lock()
		f.deleted = true
		f.mu.Unlock()
		w.WriteHeader(204)
	case p == "/install-token" || p == "/rotate-secret":
		writeJSON(w, 200, creds())
	case r.Method == "GET" && p == "/installer":
		format := r.URL.Query().Get("format")
		if format == "ps1" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		w.Header().Set("Content-Disposition", `attachment; filename="install-`+hostID+"."+format+`"`)
		w.Write([]byte("installer " + format + " with secrets"))
	case p == "/process/shell":
		f.mu.Lock()
		defer f.mu.Unlock()
		writeJSON(w, 200, f.shell)
	case p == "/files/text":
		writeJSON(w, 200, map[string]any{"path": body["path"], "content": base64.StdEncoding.EncodeToString([]byte("\x00bin\xff")),
			"encoding": "base64", "bytes": 5})
	case strings.HasPrefix(p, "/shell/session/"):
		f.serveSession(w, r, p[strings.LastIndex(p, "/")+1:], body)
	default:
		writeJSON(w, 404, map[string]string{"error": "not_found", "message": "no route " + p})
	}
}

func (f *fakeHub) serveSession(w http.ResponseWriter, r *http.Request, op string, body map[string]any) {
	switch op {
	case "open":
		writeJSON(w, 200, map[string]string{"stream_id": "s1"})
	case "write":
		f.mu.Lock()
		f.termIn.WriteString(body["input"].(string))
		f.mu.Unlock()
		w.WriteHeader(204)
	case "resize":
		f.mu.Lock()
		f.resizes = append(f.resizes, jsonString(body))
		f.mu.Unlock()
		w.WriteHeader(204)
	case "close":
		f.mu.Lock()
		f.closed = true
		f.mu.Unlock()
		w.WriteHeader(204)
	case "read":
		select {
		case s, ok := <-f.termOut:
			if !ok {
				f.mu.Lock()
				end := f.termEnd
				f.mu.Unlock()
				writeJSON(w, 200, map[string]any{"data": "", "eof": true, "exit_code": end})
				return
			}
			writeJSON(w, 200, map[string]any{"data": base64.StdEncoding.EncodeToString([]byte(s)), "eof": false})
		case <-time.After(200 * time.Millisecond):
			writeJSON(w, 200, map[string]any{"data": "", "eof": false})
		case <-r.Context().Done():
		}
	}
}

// serveHistory answers each call with the next of f.histories, the last
// one again when they run out.
func (f *fakeHub) serveHistory(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.histories[0]
	if len(f.histories) > 1 {
		f.histories = f.histories[1:]
	}
	f.calls = append(f.calls, "limit="+r.URL.Query().Get("limit"))
	writeJSON(w, 200, map[string]any{"items": h})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// result is one run of the CLI.
type result struct {
	code           int
	stdout, stderr string
}

// testEnv is an env with no config file, stdin not a terminal, and vars
// as the environment.
func testEnv(vars map[string]string, stdin string) (env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
		getenv:        func(k string) string { return vars[k] },
		home:          func() (string, error) { return "/nonexistent-home", nil },
		stdinTerminal: func() bool { return false }, console: &fakeConsole{notTTY: true}}, &out, &errb
}

// cli runs the CLI against f with the URL and key in the environment.
func (f *fakeHub) cli(t *testing.T, args ...string) result {
	t.Helper()
	e, out, errb := testEnv(map[string]string{"HOSTGATE_URL": f.srv.URL, "HOSTGATE_API_KEY": testKey}, "")
	return runEnv(t, e, out, errb, args...)
}

func runEnv(t *testing.T, e env, out, errb *bytes.Buffer, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := run(ctx, args, e)
	return result{code, out.String(), errb.String()}
}
