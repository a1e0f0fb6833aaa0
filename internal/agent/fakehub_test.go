package agent

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lxzan/gws"

	"hostgate/internal/agentproto"
	"hostgate/internal/eventually"
)

// fakeHub is a loopback hub: the enrolment endpoints, the fallback
// heartbeat and the agent WebSocket, with knobs to misbehave.
type fakeHub struct {
	t        testing.TB
	srv      *httptest.Server
	hostID   string
	seed     []byte
	pub      ed25519.PublicKey
	install  string
	secret   string
	upgrader *gws.Upgrader

	mu         sync.Mutex
	installed  bool                 // the install token was spent
	tokens     map[string]time.Time // valid agent tokens → expiry
	issued     []string             // every agent token ever issued
	issuedAt   []time.Time
	challenges map[string]bool
	tokenTTL   time.Duration
	refusals   []refusal // answers for the next ws attempts, in order
	refuseAll  *refusal  // answer for every ws attempt while set
	attempts   []time.Time
	conns      []*hubConn
	noAck      bool                // answer neither heartbeats nor pings
	helloErr   []*agentproto.Error // answers for the next hellos, in order
	banned     bool
	protocol   int // welcome's protocol; 0 means agentproto.Version

	online, refresh, heartbeats, badSig atomic.Int32
	onlineAt, refreshAt                 []time.Time
}

type refusal struct {
	status     int
	retryAfter string
	code       string
}

// hubConn is one agent connection as the fake hub sees it.
type hubConn struct {
	h          *fakeHub
	conn       *gws.Conn
	token      string
	hello      agentproto.Hello
	welcomed   chan struct{}
	msgs       chan agentproto.Envelope // cmd_resp, event and others
	closed     chan struct{}
	closeErr   error // why it closed (a *gws.CloseError for a close frame); set before closed is closed
	heartbeats atomic.Int32
	withID     atomic.Int32 // heartbeats that carry an id
	metrics    atomic.Int32
	pings      atomic.Int32
}

func newFakeHub(t testing.TB) *fakeHub {
	t.Helper()
	seed := make([]byte, ed25519.SeedSize)
	rand.Read(seed)
	h := &fakeHub{
		t: t, hostID: uuid.NewString(), seed: seed,
		pub:        ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey),
		install:    "inst-" + randHex(16),
		secret:     randHex(16),
		tokens:     map[string]time.Time{},
		challenges: map[string]bool{},
		tokenTTL:   15 * time.Minute,
	}
	h.upgrader = gws.NewUpgrader(serverEvents{h}, &gws.ServerOption{ReadMaxPayloadSize: agentproto.MaxMessage})
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+agentproto.PathOnline, h.handleOnline)
	mux.HandleFunc("POST "+agentproto.PathRefresh, h.handleRefresh)
	mux.HandleFunc("POST "+agentproto.PathHeartbeat, h.handleHeartbeat)
	mux.HandleFunc("GET "+agentproto.PathWS, h.handleWS)
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// config is an agent config for this hub with test-sized intervals.
func (h *fakeHub) config(t testing.TB) Config {
	return Config{
		HostID:            h.hostID,
		BID:               42,
		SecretKey:         h.secret,
		InstallToken:      h.install,
		AgentPrivkeySeed:  base64.StdEncoding.EncodeToString(h.seed),
		AgentPubkey:       "ed25519:" + base64.StdEncoding.EncodeToString(h.pub),
		WSURL:             "ws" + strings.TrimPrefix(h.srv.URL, "http") + agentproto.PathWS,
		APIEndpoint:       h.srv.URL + "/",
		StateDir:          t.TempDir(),
		L1Listen:          "127.0.0.1:0",
		HeartbeatOverride: time.Second,
		MetricsOverride:   time.Second,
		BackoffBase:       10 * time.Millisecond,
		BackoffCap:        200 * time.Millisecond,
		HTTPTimeout:       5 * time.Second,
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func problem(w http.ResponseWriter, status int, code string) {
	writeJSON(w, status, map[string]string{"error": code, "message": code})
}

// issue hands out a new agent token; the caller holds h.mu.
func (h *fakeHub) issue(w http.ResponseWriter) {
	tok := "agt-" + randHex(16)
	exp := time.Now().Add(h.tokenTTL)
	h.tokens[tok] = exp
	h.issued = append(h.issued, tok)
	h.issuedAt = append(h.issuedAt, time.Now())
	writeJSON(w, 200, agentproto.TokenResponse{AgentToken: tok, ExpiresAt: exp, HostID: h.hostID})
}

func (h *fakeHub) handleOnline(w http.ResponseWriter, r *http.Request) {
	h.online.Add(1)
	var in agentproto.OnlineRequest
	_ = json.NewDecoder(r.Body).Decode(&in)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.onlineAt = append(h.onlineAt, time.Now())
	switch {
	case h.banned:
		problem(w, 403, "host_banned")
	case in.HostID != h.hostID || in.InstallToken != h.install || h.installed:
		problem(w, 401, "invalid_token")
	default:
		h.installed = true
		h.issue(w)
	}
}

func (h *fakeHub) handleRefresh(w http.ResponseWriter, r *http.Request) {
	var in agentproto.RefreshRequest
	_ = json.NewDecoder(r.Body).Decode(&in)
	h.mu.Lock()
	defer h.mu.Unlock()
	if in.HostID != h.hostID {
		problem(w, 401, "invalid_token")
		return
	}
	if h.banned {
		problem(w, 403, "host_banned")
		return
	}
	if in.Challenge == "" {
		ch := base64.RawURLEncoding.EncodeToString([]byte(randHex(16)))
		h.challenges[ch] = true
		writeJSON(w, 200, agentproto.ChallengeResponse{Challenge: ch, ExpiresIn: 60})
		return
	}
	known := h.challenges[in.Challenge]
	delete(h.challenges, in.Challenge)
	sig, err := base64.StdEncoding.DecodeString(in.Signature)
	if !known || err != nil || !ed25519.Verify(h.pub, agentproto.ChallengeMessage(in.HostID, in.Challenge), sig) {
		h.badSig.Add(1)
		problem(w, 401, "invalid_token")
		return
	}
	h.refresh.Add(1)
	h.refreshAt = append(h.refreshAt, time.Now())
	h.issue(w)
}

// bearer returns the valid agent token of r, or "".
func (h *fakeHub) bearer(r *http.Request) string {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	h.mu.Lock()
	defer h.mu.Unlock()
	if exp, ok := h.tokens[tok]; ok && time.Now().Before(exp) {
		return tok
	}
	return ""
}

func (h *fakeHub) handleHeartbeat(w http.ResponseWriter, r *http.Request) {
	if h.bearer(r) == "" {
		problem(w, 401, "invalid_token")
		return
	}
	h.heartbeats.Add(1)
	writeJSON(w, 200, agentproto.HeartbeatResponse{OK: true, ServerTime: time.Now().UnixMilli()})
}

func (h *fakeHub) handleWS(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.attempts = append(h.attempts, time.Now())
	var ref *refusal
	if h.refuseAll != nil {
		ref = h.refuseAll
	} else if len(h.refusals) > 0 {
		ref = &h.refusals[0]
		h.refusals = h.refusals[1:]
	}
	h.mu.Unlock()
	if ref != nil {
		if ref.retryAfter != "" {
			w.Header().Set(agentproto.RetryAfterHeader, ref.retryAfter)
		}
		problem(w, ref.status, ref.code)
		return
	}
	tok := h.bearer(r)
	if tok == "" {
		problem(w, 401, "invalid_token")
		return
	}
	socket, err := h.upgrader.Upgrade(w, r)
	if err != nil {
		h.t.Errorf("upgrade: %v", err)
		return
	}
	c := &hubConn{h: h, conn: socket, token: tok, welcomed: make(chan struct{}),
		msgs: make(chan agentproto.Envelope, 1024), closed: make(chan struct{})}
	socket.Session().Store("c", c)
	h.mu.Lock()
	h.conns = append(h.conns, c)
	h.mu.Unlock()
	go socket.ReadLoop()
}

// serverEvents is the fake hub's side of each WebSocket.
type serverEvents struct{ h *fakeHub }

func connOf(s *gws.Conn) *hubConn {
	v, _ := s.Session().Load("c")
	return v.(*hubConn)
}

func (serverEvents) OnOpen(*gws.Conn) {}
func (serverEvents) OnClose(s *gws.Conn, err error) {
	c := connOf(s)
	c.closeErr = err
	close(c.closed)
}
func (serverEvents) OnPong(*gws.Conn, []byte) {}
func (e serverEvents) OnPing(s *gws.Conn, p []byte) {
	connOf(s).pings.Add(1)
	if !e.h.silent() {
		_ = s.WritePong(p)
	}
}

func (e serverEvents) OnMessage(s *gws.Conn, m *gws.Message) {
	defer m.Close()
	c := connOf(s)
	env, err := agentproto.Decode(m.Bytes())
	if err != nil {
		e.h.t.Errorf("agent sent a malformed message: %q", m.Bytes())
		return
	}
	switch env.Type {
	case agentproto.TypeHello:
		e.hello(c, env)
	case agentproto.TypeHeartbeat:
		c.heartbeats.Add(1)
		if env.ID != "" {
			c.withID.Add(1)
		}
		if !e.h.silent() {
			c.send(agentproto.TypeHeartbeatAck, env.ID, nil)
		}
	case agentproto.TypeMetrics:
		c.metrics.Add(1)
	default:
		select {
		case c.msgs <- env:
		default:
			e.h.t.Errorf("fake hub message buffer full")
		}
	}
}

func (h *fakeHub) silent() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.noAck
}

func (e serverEvents) hello(c *hubConn, env agentproto.Envelope) {
	if err := agentproto.DecodeBody(env, &c.hello); err != nil {
		e.h.t.Errorf("bad hello: %v", err)
	}
	e.h.mu.Lock()
	var refuse *agentproto.Error
	if len(e.h.helloErr) > 0 {
		refuse, e.h.helloErr = e.h.helloErr[0], e.h.helloErr[1:]
	}
	e.h.mu.Unlock()
	if refuse != nil {
		c.send(agentproto.TypeError, "", refuse)
		_ = c.conn.WriteClose(4001, []byte(refuse.Message))
		return
	}
	proto := agentproto.Version
	e.h.mu.Lock()
	if e.h.protocol != 0 {
		proto = e.h.protocol
	}
	e.h.mu.Unlock()
	c.send(agentproto.TypeWelcome, "", agentproto.Welcome{Protocol: proto, HostID: e.h.hostID,
		HeartbeatS: 25, MetricsS: 60, ServerTime: time.Now().UnixMilli()})
	close(c.welcomed)
}

func (c *hubConn) send(typ, id string, body any) {
	msg, err := agentproto.Encode(typ, id, body)
	if err != nil {
		c.h.t.Errorf("encode: %v", err)
		return
	}
	_ = c.conn.WriteMessage(gws.OpcodeText, msg)
}

// cmd sends a command with a deadline d from now.
func (c *hubConn) cmd(id, op string, d time.Duration, args any) {
	var raw json.RawMessage
	if args != nil {
		raw, _ = json.Marshal(args)
	}
	c.send(agentproto.TypeCmd, id, agentproto.Command{Op: op, DeadlineMs: time.Now().Add(d).UnixMilli(), Args: raw})
}

// resp waits for the cmd_resp of id.
func (c *hubConn) resp(t *testing.T, id string) agentproto.Response {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case e := <-c.msgs:
			if e.Type != agentproto.TypeCmdResp || e.ID != id {
				continue
			}
			var r agentproto.Response
			if err := agentproto.DecodeBody(e, &r); err != nil {
				t.Fatalf("cmd_resp %s: %v", id, err)
			}
			return r
		case <-timeout:
			t.Fatalf("no cmd_resp for %s", id)
		}
	}
}

// conn waits for the n-th (from 1) welcomed connection.
func (h *fakeHub) conn(t testing.TB, n int) *hubConn {
	t.Helper()
	var c *hubConn
	waitFor(t, 5*time.Second, "connection "+strconv.Itoa(n), func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		if len(h.conns) < n {
			return false
		}
		c = h.conns[n-1]
		select {
		case <-c.welcomed:
			return true
		default:
			return false
		}
	})
	return c
}

func (h *fakeHub) connCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

// socketHeartbeats counts heartbeats over all WebSocket connections.
func (h *fakeHub) socketHeartbeats() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.conns {
		n += int(c.heartbeats.Load())
	}
	return n
}

func (h *fakeHub) attemptTimes() []time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]time.Time(nil), h.attempts...)
}

func (h *fakeHub) revokeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.tokens)
}

func (h *fakeHub) with(f func(h *fakeHub)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f(h)
}

// waitFor waits for ok to hold: eventually.True with the package's
// tripled limits, which the package's other test files call.
func waitFor(t testing.TB, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	// Limits are what a healthy run needs by far; tripled so a loaded CI
	// machine (the Windows build runs under Wine) is not a failure.
	eventually.True(t, 3*limit, what, ok)
}

// syncBuffer is a log sink safe for concurrent writers.
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

// testAgent is a running agent with its captured log.
type testAgent struct {
	*Agent
	logs   *syncBuffer
	cancel context.CancelFunc
	done   chan error
}

// start runs an agent for cfg; it is stopped (and must stop promptly) at
// the end of the test.
func start(t testing.TB, cfg Config) *testAgent {
	t.Helper()
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	// The connection tests need neither real metrics nor the operations:
	// a constant sample and the built-in ping keep them about the channel.
	if cfg.Sampler == nil {
		cfg.Sampler = SamplerFunc(func(context.Context) (agentproto.Metrics, error) {
			return agentproto.Metrics{UptimeS: 1}, nil
		})
	}
	if cfg.Commands == nil {
		cfg.Commands = NewRegistry()
	}
	a, err := New(cfg, log)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ta := &testAgent{Agent: a, logs: logs, cancel: cancel, done: make(chan error, 1)}
	go func() { ta.done <- a.Run(ctx) }()
	t.Cleanup(func() { ta.stop(t) })
	return ta
}

// stop cancels the agent and checks that Run returns nil promptly.
func (ta *testAgent) stop(t testing.TB) {
	t.Helper()
	ta.cancel()
	select {
	case err, ok := <-ta.done:
		if ok && err != nil {
			t.Errorf("Run: %v", err)
		}
		if ok {
			close(ta.done)
		}
	case <-time.After(3 * time.Second):
		var stacks bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&stacks, 2)
		t.Fatalf("Run did not return within 3s of cancel\n%s\n%s", ta.logs, stacks.String())
	}
}

func (ta *testAgent) waitConnected(t testing.TB, sessions int) {
	t.Helper()
	waitFor(t, 5*time.Second, "connected", func() bool {
		st := ta.Status()
		return st.Connected && st.Sessions >= sessions
	})
}
