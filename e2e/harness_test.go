// Package e2e tests hostgate as users run it: real hub and agent processes
// on loopback, driven over HTTP.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"hostgate/internal/eventually"
	"hostgate/internal/pgtest"
	"hostgate/internal/redistest"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds hostgate and hostgate-agent once per test run.
func binaries(t *testing.T) (hub, agent string) {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "hostgate-e2e-")
		if buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", binDir+"/", "hostgate/cmd/hostgate", "hostgate/cmd/hostgate-agent").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	return filepath.Join(binDir, "hostgate"), filepath.Join(binDir, "hostgate-agent")
}

// Env is one test's world: shared stores for its hubs.
type Env struct {
	t   *testing.T
	env map[string]string
	// agentEnv is added to the environment of the agents it starts
	// (AgentEnv), so a test that sets one need not t.Setenv and can run
	// in parallel.
	agentEnv map[string]string
}

// AgentEnv sets an environment variable for the agent processes e starts
// from now on (SHELL, HOSTGATE_AGENT_HEARTBEAT, …), leaving the test
// process's own environment alone.
func (e *Env) AgentEnv(key, value string) {
	if e.agentEnv == nil {
		e.agentEnv = map[string]string{}
	}
	e.agentEnv[key] = value
}

// NewEnv prepares stores: scaled uses a fresh PostgreSQL database and Redis
// prefix, so several hubs can share them; otherwise each hub is embedded.
func NewEnv(t *testing.T, scaled bool) *Env {
	e := &Env{t: t, env: map[string]string{"HOSTGATE_LOG_FORMAT": "text", "HOSTGATE_LOG_LEVEL": "info",
		"HOSTGATE_ADMIN_USERNAME": adminUser, "HOSTGATE_ADMIN_PASSWORD": adminPassword}}
	// The suites register and sign in many accounts from 127.0.0.1: the
	// abuse limits stay on, at numbers no test reaches.
	for k, v := range map[string]string{"HOSTGATE_RATE_LOGIN": "1000000/1000000", "HOSTGATE_RATE_REGISTER": "1000000/1000000",
		"HOSTGATE_RATE_REFRESH": "1000000", "HOSTGATE_RATE_TICKET": "1000000/1000000",
		"HOSTGATE_RATE_NOTIFY": "1000000", "HOSTGATE_RATE_CHECKOUT": "1000000"} {
		e.env[k] = v
	}
	if scaled {
		e.env["HOSTGATE_DATABASE_URL"] = pgtest.NewDatabase(t)
		e.env["HOSTGATE_REDIS_URL"] = redistest.URL(t)
		e.env["HOSTGATE_REDIS_PREFIX"] = redistest.Prefix(t)
	}
	e.env["HOSTGATE_DATA_DIR"] = t.TempDir()
	return e
}

// Proc is a running process with its captured output.
type Proc struct {
	t    *testing.T
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func start(t *testing.T, bin string, env map[string]string, args ...string) *Proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &Proc{t: t, cmd: cmd, out: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() {
			t.Logf("output of %s:\n%s", filepath.Base(bin), p.out.String())
		}
	})
	return p
}

// Stop ends the process with SIGTERM (SIGKILL after 10 s) and waits.
func (p *Proc) Stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	p.cmd.ProcessState = &os.ProcessState{}
}

// Hub is a running hub process.
type Hub struct {
	*Proc
	URL  string
	addr string
	e    *Env
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// StartHub starts a hub on a free port (or on addr, to restart one).
func (e *Env) StartHub(addr ...string) *Hub {
	e.t.Helper()
	bin, _ := binaries(e.t)
	a := freeAddr(e.t)
	if len(addr) > 0 {
		a = addr[0]
	}
	env := map[string]string{"HOSTGATE_ADDR": a, "HOSTGATE_PUBLIC_URL": "http://" + a, "HOSTGATE_SHUTDOWN_GRACE": "2s"}
	for k, v := range e.env {
		env[k] = v
	}
	if len(addr) == 0 && e.env["HOSTGATE_DATABASE_URL"] == "" {
		env["HOSTGATE_DATA_DIR"] = e.t.TempDir()
		e.env["HOSTGATE_DATA_DIR"] = env["HOSTGATE_DATA_DIR"]
	}
	h := &Hub{Proc: start(e.t, bin, env), URL: "http://" + a, addr: a, e: e}
	eventually.True(e.t, 30*time.Second, "hub ready", func() bool {
		r, err := http.Get(h.URL + "/readyz")
		if err == nil {
			r.Body.Close()
		}
		return err == nil && r.StatusCode == 200
	})
	return h
}

// Restart stops the hub and starts it again on the same address and stores.
func (h *Hub) Restart() *Hub {
	h.Stop()
	return h.e.StartHub(h.addr)
}

// Agent is a running agent process.
type Agent struct{ *Proc }

// StartAgent runs hostgate-agent with install credentials against hub.
func (e *Env) StartAgent(c Credentials, stateDir string) *Agent {
	e.t.Helper()
	_, bin := binaries(e.t)
	return e.StartAgentExe(bin, c, stateDir)
}

// StartAgentExe is StartAgent with the agent executable at bin.
func (e *Env) StartAgentExe(bin string, c Credentials, stateDir string) *Agent {
	e.t.Helper()
	args := []string{"run", "--host-id", c.HostID, "--bid", fmt.Sprint(c.BID), "--secret-key", c.SecretKey,
		"--install-token", c.InstallToken, "--agent-privkey-seed", c.AgentPrivkeySeed, "--agent-pubkey", c.AgentPubkey,
		"--ws-url", c.WSURL, "--api-endpoint", c.APIEndpoint, "--state-dir", stateDir}
	return &Agent{start(e.t, bin, e.agentEnv, args...)}
}

// Credentials are install credentials as the API returns them.
type Credentials struct {
	HostID           string `json:"host_id"`
	BID              int64  `json:"bid"`
	SecretKey        string `json:"secret_key"`
	InstallToken     string `json:"install_token"`
	AgentPrivkeySeed string `json:"agent_privkey_seed"`
	AgentPubkey      string `json:"agent_pubkey"`
	APIEndpoint      string `json:"api_endpoint"`
	WSURL            string `json:"ws_url"`
}

// call does one JSON request and decodes the answer into out (if not nil).
func call(t *testing.T, method, url, token string, body, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, url, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, url, b, err)
		}
	}
	return resp.StatusCode
}

// The bootstrap owner admin of every test hub.
const (
	adminUser     = "e2e-owner"
	adminPassword = "e2e owner password"
)

// adminToken signs the bootstrap owner admin in on h.
func adminToken(t *testing.T, h *Hub) string {
	t.Helper()
	var login struct {
		AccessToken string `json:"access_token"`
	}
	if s := call(t, "POST", h.URL+"/v1/admin/auth/login", "", map[string]string{"username": adminUser, "password": adminPassword}, &login); s != 200 {
		t.Fatalf("admin login: %d", s)
	}
	return login.AccessToken
}

// Customer is a registered user with an API key on a hub.
type Customer struct {
	t      *testing.T
	UserID string
	Token  string
	Key    string
}

// Fund adds tokens to the customer's balance through the admin API.
func (c Customer) Fund(h *Hub, tokens float64) {
	c.t.Helper()
	body := map[string]any{"tokens": tokens, "reason": "e2e funding"}
	if s := call(c.t, "POST", h.URL+"/v1/admin/users/"+c.UserID+"/balance/adjust", adminToken(c.t, h), body, nil); s != 200 {
		c.t.Fatalf("fund: %d", s)
	}
}

// Balance is the customer's balance in tokens.
func (c Customer) Balance(h *Hub) float64 {
	c.t.Helper()
	var out struct{ Tokens float64 }
	if s := call(c.t, "GET", h.URL+"/v1/user/billing/balance", c.Token, nil, &out); s != 200 {
		c.t.Fatalf("balance: %d", s)
	}
	return out.Tokens
}

// NewCustomer registers a user and creates an API key.
func NewCustomer(t *testing.T, h *Hub) Customer {
	t.Helper()
	email := fmt.Sprintf("e2e-%d@example.com", time.Now().UnixNano())
	var auth struct {
		AccessToken string `json:"access_token"`
		User        struct{ ID string }
	}
	if s := call(t, "POST", h.URL+"/v1/public/auth/register", "", map[string]string{"email": email, "password": "e2e password ok"}, &auth); s != 200 {
		t.Fatalf("register: %d", s)
	}
	var key struct{ Secret string }
	if s := call(t, "POST", h.URL+"/v1/user/api-keys", auth.AccessToken, map[string]string{"name": "e2e"}, &key); s != 200 {
		t.Fatalf("create key: %d", s)
	}
	return Customer{t: t, UserID: auth.User.ID, Token: auth.AccessToken, Key: key.Secret}
}

// CreateHost creates a host with credentials through the client API.
func (c Customer) CreateHost(h *Hub, name string) Credentials {
	c.t.Helper()
	var out struct {
		Credentials Credentials `json:"credentials"`
	}
	if s := call(c.t, "POST", h.URL+"/v1/api/hosts", c.Key, map[string]any{"name": name, "with_credentials": true}, &out); s != 201 {
		c.t.Fatalf("create host: %d", s)
	}
	return out.Credentials
}

// Connected reports the host's live state as the client API sees it on h.
func (c Customer) Connected(h *Hub, hostID string) bool {
	var out struct{ Online bool }
	call(c.t, "GET", h.URL+"/v1/api/hosts/"+hostID, c.Key, nil, &out)
	return out.Online
}

// Ping round-trips a command through h and returns the status.
func (c Customer) Ping(h *Hub, hostID string) int {
	return call(c.t, "POST", h.URL+"/v1/api/hosts/"+hostID+"/ping", c.Key, nil, nil)
}

// must returns a function that fails the test on an error and otherwise
// passes the value through: must[T](t, "what")(call()).
func must[T any](t *testing.T, what string) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}
