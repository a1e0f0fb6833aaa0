//go:build !windows

package main

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lxzan/gws"

	"hostgate/internal/agent/upgrade"
	"hostgate/internal/agentproto"
	"hostgate/internal/eventually"
)

// TestUpgradeRestartWithRealBinaries runs the restart of real agent
// builds: the exec into the new version (same pid) after an upgrade,
// and the exec back into the old one when the new one is not welcomed.
func TestUpgradeRestartWithRealBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent twice")
	}
	bins := t.TempDir()
	old := buildAgent(t, bins, "1.0.0")
	new := buildAgent(t, bins, "2.0.0")

	// The same -X stamp `make build` and `make release` use.
	t.Run("version prints the version stamped at build", func(t *testing.T) {
		out, err := exec.Command(filepath.Join(bins, "hostgate-agent-2.0.0"), "version").Output()
		if err != nil || !strings.HasPrefix(string(out), "hostgate-agent 2.0.0 ") {
			t.Errorf("version: %v %q", err, out)
		}
	})
	t.Run("upgrade execs into the new version, which confirms", func(t *testing.T) {
		testUpgradeConfirmed(t, old, new)
	})
	t.Run("unconfirmed new version execs back into the old one", func(t *testing.T) {
		testUnconfirmedRollsBack(t, old, new)
	})
}

func buildAgent(t *testing.T, dir, version string) []byte {
	t.Helper()
	out := filepath.Join(dir, "hostgate-agent-"+version)
	cmd := exec.Command("go", "build", "-o", out, "-ldflags", "-X hostgate/internal/agent.Version="+version, ".")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testUpgradeConfirmed(t *testing.T, old, new []byte) {
	h := newMiniHub(t, new)
	exe := installAgent(t, old)
	p := startAgent(t, exe, h.args(t)...)

	c := h.await(t, "1.0.0")
	id := uuid.NewString()
	sum := sha256.Sum256(new)
	c.send(t, agentproto.TypeCmd, id, agentproto.Command{Op: agentproto.OpUpgrade, DeadlineMs: time.Now().Add(time.Minute).UnixMilli(),
		Args: mustJSON(t, agentproto.Upgrade{Version: "2.0.0", ExeURL: h.srv.URL + "/exe", ExeSHA256: hex.EncodeToString(sum[:]), ExeSize: int64(len(new))})})
	h.awaitReport(t, agentproto.UpgradeRestarting)

	h.await(t, "2.0.0")
	if r := h.awaitReport(t, agentproto.UpgradeDone); r.Version != "2.0.0" {
		t.Errorf("done report %+v", r)
	}
	p.assertRunning(t, exe)
	assertBytes(t, exe, new)
	eventually.True(t, 60*time.Second, "backup and record gone", func() bool {
		_, err := os.Stat(upgrade.BackupPath(exe))
		rec, _ := upgrade.LoadRecord(h.stateDir)
		return os.IsNotExist(err) && rec == nil
	})
	p.stop(t)
}

func testUnconfirmedRollsBack(t *testing.T, old, new []byte) {
	exe := installAgent(t, new)
	if err := os.WriteFile(upgrade.BackupPath(exe), old, 0o755); err != nil {
		t.Fatal(err)
	}
	h := newMiniHub(t, nil)
	h.refuse = true // the hub does not take the new version
	err := upgrade.SaveRecord(h.stateDir, upgrade.Record{Version: "2.0.0", FromVersion: "1.0.0", Exe: exe,
		Backup: upgrade.BackupPath(exe), State: agentproto.UpgradeRestarting, Time: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	p := startAgent(t, exe, append(h.args(t), "--upgrade-confirm-timeout", "1s")...)

	p.awaitLog(t, "rolling back to the previous executable")
	p.awaitLog(t, `msg="agent starting"`, "version=1.0.0")
	p.assertRunning(t, exe)
	assertBytes(t, exe, old)
	rec, err := upgrade.LoadRecord(h.stateDir)
	if err != nil || rec == nil || rec.State != agentproto.UpgradeRolledBack ||
		rec.Reason != "version 2.0.0 was not accepted by the hub within 1s" {
		t.Fatalf("record %+v, %v", rec, err)
	}
	h.mu.Lock()
	h.refuse = false
	h.mu.Unlock()
	if r := h.awaitReport(t, agentproto.UpgradeRolledBack); r.Version != "2.0.0" || !strings.Contains(r.Reason, "within 1s") {
		t.Errorf("rolled_back report %+v", r)
	}
	p.stop(t)
}

// installAgent puts exe bytes at a fresh path and returns it.
func installAgent(t *testing.T, b []byte) string {
	exe := filepath.Join(t.TempDir(), "hostgate-agent")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// agentProcess is a running hostgate-agent with its stderr collected.
type agentProcess struct {
	cmd    *exec.Cmd
	exited chan struct{}
	mu     sync.Mutex
	log    bytes.Buffer
}

func startAgent(t *testing.T, exe string, args ...string) *agentProcess {
	t.Helper()
	p := &agentProcess{cmd: exec.Command(exe, append([]string{"run", "--log-level", "debug"}, args...)...), exited: make(chan struct{})}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("agent log:\n%s", p.logs())
		}
	})
	return p
}

func (p *agentProcess) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// awaitLog waits for a log line that contains all of parts.
func (p *agentProcess) awaitLog(t *testing.T, parts ...string) {
	t.Helper()
	eventually.True(t, 60*time.Second, "log line with "+strings.Join(parts, ", "), func() bool {
		for line := range strings.Lines(p.logs()) {
			all := true
			for _, s := range parts {
				all = all && strings.Contains(line, s)
			}
			if all {
				return true
			}
		}
		return false
	})
}

// assertRunning checks that the process the test started never exited
// and now runs the file at exe: it was exec'd, not replaced by a child.
func (p *agentProcess) assertRunning(t *testing.T, exe string) {
	t.Helper()
	select {
	case <-p.exited:
		t.Fatalf("the agent process exited:\n%s", p.logs())
	default:
	}
	if runtime.GOOS == "linux" {
		if got, err := os.Readlink("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/exe"); err != nil || got != exe {
			t.Errorf("pid %d runs %q (%v), want %s", p.cmd.Process.Pid, got, err, exe)
		}
	}
}

// stop sends SIGTERM and expects a clean exit.
func (p *agentProcess) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit after SIGTERM:\n%s", p.logs())
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0:\n%s", code, p.logs())
	}
}

// miniHub is just enough hub for an upgrade: enrolment by install token,
// the agent WebSocket (hello → welcome, upgrade reports) and the new
// executable at /exe.
type miniHub struct {
	srv      *httptest.Server
	stateDir string
	hostID   string
	seed     []byte
	install  string

	mu      sync.Mutex
	token   string
	refuse  bool // answer the WebSocket upgrade with 503, Retry-After: 1
	conns   map[string]*miniConn
	reports []agentproto.UpgradeReport
}

type miniConn struct{ c *gws.Conn }

func newMiniHub(t *testing.T, exe []byte) *miniHub {
	h := &miniHub{stateDir: t.TempDir(), hostID: uuid.NewString(), seed: bytes.Repeat([]byte{3}, 32),
		install: "inst-" + uuid.NewString(), conns: map[string]*miniConn{}}
	up := gws.NewUpgrader(miniEvents{h}, &gws.ServerOption{ReadMaxPayloadSize: agentproto.MaxMessage})
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+agentproto.PathOnline, func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.token = "agt-" + uuid.NewString()
		_ = json.NewEncoder(w).Encode(agentproto.TokenResponse{AgentToken: h.token, ExpiresAt: time.Now().Add(time.Hour), HostID: h.hostID})
	})
	mux.HandleFunc("GET "+agentproto.PathWS, func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		ok, refuse := h.token != "" && r.Header.Get("Authorization") == "Bearer "+h.token, h.refuse
		h.mu.Unlock()
		if refuse {
			w.Header().Set(agentproto.RetryAfterHeader, "1")
			http.Error(w, `{"error":"unavailable"}`, http.StatusServiceUnavailable)
			return
		}
		if !ok {
			http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
			return
		}
		if c, err := up.Upgrade(w, r); err == nil {
			go c.ReadLoop()
		}
	})
	mux.HandleFunc("GET /exe", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(exe) })
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

// args are the agent's command-line flags for this hub.
func (h *miniHub) args(t *testing.T) []string {
	pub := ed25519.NewKeyFromSeed(h.seed).Public().(ed25519.PublicKey)
	return []string{"--host-id", h.hostID, "--install-token", h.install,
		"--agent-privkey-seed", base64.StdEncoding.EncodeToString(h.seed),
		"--agent-pubkey", "ed25519:" + base64.StdEncoding.EncodeToString(pub),
		"--ws-url", "ws" + strings.TrimPrefix(h.srv.URL, "http") + agentproto.PathWS,
		"--api-endpoint", h.srv.URL, "--state-dir", h.stateDir}
}

// await waits for a welcomed connection of an agent of version.
func (h *miniHub) await(t *testing.T, version string) *miniConn {
	t.Helper()
	var c *miniConn
	eventually.True(t, 60*time.Second, "hello from "+version, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		c = h.conns[version]
		return c != nil
	})
	return c
}

func (h *miniHub) awaitReport(t *testing.T, state agentproto.UpgradeState) agentproto.UpgradeReport {
	t.Helper()
	var got agentproto.UpgradeReport
	eventually.True(t, 60*time.Second, "upgrade report "+string(state), func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, r := range h.reports {
			if r.State == state {
				got = r
				return true
			}
		}
		return false
	})
	return got
}

func (c *miniConn) send(t *testing.T, typ, id string, body any) {
	msg, err := agentproto.Encode(typ, id, body)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.c.WriteMessage(gws.OpcodeText, msg); err != nil {
		t.Fatal(err)
	}
}

type miniEvents struct{ h *miniHub }

func (miniEvents) OnOpen(*gws.Conn)             {}
func (miniEvents) OnClose(*gws.Conn, error)     {}
func (miniEvents) OnPong(*gws.Conn, []byte)     {}
func (miniEvents) OnPing(c *gws.Conn, p []byte) { _ = c.WritePong(p) }
func (e miniEvents) OnMessage(c *gws.Conn, m *gws.Message) {
	defer m.Close()
	env, err := agentproto.Decode(m.Bytes())
	if err != nil {
		return
	}
	h := e.h
	switch env.Type {
	case agentproto.TypeHello:
		var hello agentproto.Hello
		_ = agentproto.DecodeBody(env, &hello)
		msg, _ := agentproto.Encode(agentproto.TypeWelcome, "", agentproto.Welcome{Protocol: agentproto.Version, HostID: h.hostID,
			HeartbeatS: 25, MetricsS: 60, ServerTime: time.Now().UnixMilli()})
		_ = c.WriteMessage(gws.OpcodeText, msg)
		h.mu.Lock()
		h.conns[hello.AgentVersion] = &miniConn{c: c}
		h.mu.Unlock()
	case agentproto.TypeHeartbeat:
		msg, _ := agentproto.Encode(agentproto.TypeHeartbeatAck, env.ID, nil)
		_ = c.WriteMessage(gws.OpcodeText, msg)
	case agentproto.TypeUpgrade:
		var r agentproto.UpgradeReport
		if agentproto.DecodeBody(env, &r) == nil {
			h.mu.Lock()
			h.reports = append(h.reports, r)
			h.mu.Unlock()
		}
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func assertBytes(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s holds %d bytes (sha %x), want %d bytes (sha %x)", path, len(got), sha256.Sum256(got), len(want), sha256.Sum256(want))
	}
}
