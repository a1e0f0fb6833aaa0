package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the scaled backend's database, created and dropped per run

	"hostgate/internal/hosts"
)

const (
	benchAdmin    = "bench-owner"
	benchPassword = "bench owner password"
	pgAdminURL    = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	redisURL      = "redis://127.0.0.1:6379/0"
)

func pgReachable() bool {
	for _, a := range []string{"127.0.0.1:5432", "127.0.0.1:6379"} {
		c, err := net.DialTimeout("tcp", a, time.Second)
		if err != nil {
			return false
		}
		c.Close()
	}
	return true
}

// backend is the storage of one or more hub processes.
type backend struct {
	name   string // "sqlite" or "pg+redis"
	scaled bool   // PostgreSQL + Redis, which several instances can share
	db     string // the PostgreSQL database's name, when scaled
	env    map[string]string
	close  func()
}

func (b *bench) newBackend(scaled bool) (*backend, error) {
	dir, err := os.MkdirTemp(b.work, "data-")
	if err != nil {
		return nil, err
	}
	env := map[string]string{
		"HOSTGATE_DATA_DIR": dir, "HOSTGATE_LOG_LEVEL": "warn",
		"HOSTGATE_ADMIN_USERNAME": benchAdmin, "HOSTGATE_ADMIN_PASSWORD": benchPassword,
		// Admission is tuned for production reconnect storms; the bench
		// connects its fleet at its own pace.
		"HOSTGATE_AGENT_HANDSHAKE_RATE": "5000", "HOSTGATE_AGENT_HANDSHAKE_CONCURRENCY": "256",
		// The webhook scenario's receiver is on loopback.
		"HOSTGATE_WEBHOOK_ALLOW_PRIVATE": "1",
		// The scenarios register and sign in many accounts from one
		// address: the abuse limits stay on, above what they send.
		"HOSTGATE_RATE_LOGIN": "1000000/1000000", "HOSTGATE_RATE_REGISTER": "1000000/1000000",
		"HOSTGATE_RATE_REFRESH": "1000000", "HOSTGATE_RATE_TICKET": "1000000/1000000",
		"HOSTGATE_RATE_NOTIFY": "1000000", "HOSTGATE_RATE_CHECKOUT": "1000000",
	}
	if !scaled {
		return &backend{name: "sqlite", env: env, close: func() {}}, nil
	}
	db, err := sql.Open("pgx", pgAdminURL)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("hostgate_bench_%d", time.Now().UnixNano())
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		db.Close()
		return nil, err
	}
	env["HOSTGATE_DATABASE_URL"] = strings.Replace(pgAdminURL, "/postgres?", "/"+name+"?", 1)
	env["HOSTGATE_REDIS_URL"] = redisURL
	env["HOSTGATE_REDIS_PREFIX"] = name + ":"
	return &backend{name: "pg+redis", scaled: true, db: name, env: env, close: func() {
		_, _ = db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		db.Close()
	}}, nil
}

// proc is a child process that is stopped with SIGTERM, then killed.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startProc(ctx context.Context, bin string, env map[string]string, stdout io.Writer, args ...string) (*proc, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = stdout, stdout
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

func (p *proc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// hubProc is a running hub process.
type hubProc struct {
	*proc
	url     string
	env     map[string]string
	metrics string // base URL of /metrics and /debug/pprof
}

func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func (b *bench) startHub(ctx context.Context, be *backend) (*hubProc, error) {
	return b.startHubAt(ctx, hubEnv(be, freeAddr()))
}

// hubEnv is the environment of a hub on be listening at addr.
func hubEnv(be *backend, addr string) map[string]string {
	env := map[string]string{"HOSTGATE_ADDR": addr, "HOSTGATE_PUBLIC_URL": "http://" + addr}
	for k, v := range be.env {
		env[k] = v
	}
	return env
}

func (b *bench) startHubAt(ctx context.Context, env map[string]string) (*hubProc, error) {
	addr := env["HOSTGATE_ADDR"]
	env["HOSTGATE_METRICS_ADDR"] = freeAddr()
	p, err := startProc(ctx, filepath.Join(b.bins, "hostgate"), env, b.log)
	if err != nil {
		return nil, err
	}
	h := &hubProc{proc: p, url: "http://" + addr, env: env, metrics: "http://" + env["HOSTGATE_METRICS_ADDR"]}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if resp, err := setupClient.Get(h.url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return h, nil
			}
		}
		if time.Now().After(deadline) {
			p.stop()
			return nil, errors.New("hub not ready within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// setupClient makes the scenarios' set-up calls; a hub that stops
// answering fails the run instead of hanging it.
var setupClient = &http.Client{Timeout: time.Minute}

// call makes one JSON request and decodes a 2xx answer into out.
func call(method, url, token string, in, out any) error {
	return callClient(setupClient, method, url, token, in, out)
}

// callClient is call through client.
func callClient(client *http.Client, method, url, token string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, url, resp.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// customer is a funded user with an API key and a host whose real agent
// process is connected; access is the user's console token.
type customer struct {
	key, hostID, access string
	agent               *proc
}

func (b *bench) newCustomer(ctx context.Context, h *hubProc) (*customer, error) {
	acct, err := b.newAccount(h)
	if err != nil {
		return nil, err
	}
	hostID, agent, err := b.agentFor(ctx, h, acct.key, "bench", filepath.Join(b.bins, "hostgate-agent"))
	if err != nil {
		return nil, err
	}
	return &customer{key: acct.key, hostID: hostID, access: acct.access, agent: agent}, nil
}

// agentFor creates a host named name with the API key and runs a real
// agent process for it from the executable exe, until it is online.
func (b *bench) agentFor(ctx context.Context, h *hubProc, key, name, exe string) (string, *proc, error) {
	var created struct {
		Credentials hosts.Credentials `json:"credentials"`
	}
	if err := call("POST", h.url+"/v1/api/hosts", key, map[string]any{"name": name, "with_credentials": true}, &created); err != nil {
		return "", nil, err
	}
	c := created.Credentials
	state, err := os.MkdirTemp(b.work, "agent-")
	if err != nil {
		return "", nil, err
	}
	// Terminals run $SHELL: /bin/sh (dash) has no line editor and reads no
	// rc file, so what a terminal echoes is the kernel's line discipline,
	// the same few bytes on every machine.
	agent, err := startProc(ctx, exe, map[string]string{"SHELL": "/bin/sh"}, b.log, "run",
		"--host-id", c.HostID, "--bid", strconv.FormatInt(c.BID, 10), "--secret-key", c.SecretKey,
		"--install-token", c.InstallToken, "--agent-privkey-seed", c.AgentPrivkeySeed, "--agent-pubkey", c.AgentPubkey,
		"--ws-url", c.WSURL, "--api-endpoint", c.APIEndpoint, "--state-dir", state, "--l1-listen", "off")
	if err != nil {
		return "", nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var st struct{ Online bool }
		if call("GET", h.url+"/v1/api/hosts/"+c.HostID, key, nil, &st) == nil && st.Online {
			return c.HostID, agent, nil
		}
		if time.Now().After(deadline) {
			agent.stop()
			return "", nil, fmt.Errorf("agent %s not online within 30 s", name)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
