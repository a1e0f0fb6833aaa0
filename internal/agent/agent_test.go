package agent

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/agentproto"
	"hostgate/internal/battery"
)

func TestEnrolWithInstallToken(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := h.config(t)
	a := start(t, cfg)
	a.waitConnected(t, 1)
	c := h.conn(t, 1)

	if h.online.Load() != 1 || h.refresh.Load() != 0 {
		t.Errorf("online %d refresh %d, want 1 and 0", h.online.Load(), h.refresh.Load())
	}
	if c.hello.Protocol != agentproto.Version || c.hello.AgentVersion != Version || c.hello.Hostname == "" ||
		!strings.HasPrefix(c.hello.OS, runtime.GOOS) {
		t.Errorf("hello = %+v", c.hello)
	}
	waitFor(t, 5*time.Second, "first metrics", func() bool { return c.metrics.Load() >= 1 })

	for _, name := range []string{tokenFile, consumedFile} {
		fi, err := os.Stat(filepath.Join(cfg.StateDir, name))
		if err != nil {
			t.Fatalf("state file %s: %v", name, err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", name, fi.Mode().Perm())
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(cfg.StateDir, ".*.tmp"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestStateDirCreatedPrivate(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := h.config(t)
	cfg.StateDir = filepath.Join(cfg.StateDir, "nested", "state")
	a := start(t, cfg)
	a.waitConnected(t, 1)
	fi, err := os.Stat(cfg.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Errorf("state dir mode %v, want 0700", fi.Mode().Perm())
	}
}

func TestEnrolByRefreshChallenge(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := h.config(t)
	cfg.InstallToken = ""
	a := start(t, cfg)
	a.waitConnected(t, 1)
	if h.online.Load() != 0 || h.refresh.Load() != 1 || h.badSig.Load() != 0 {
		t.Errorf("online %d refresh %d bad signatures %d, want 0, 1, 0", h.online.Load(), h.refresh.Load(), h.badSig.Load())
	}
}

func TestRefusedInstallTokenFallsBackToRefresh(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.with(func(h *fakeHub) { h.installed = true }) // spent by an earlier installation
	cfg := h.config(t)
	a := start(t, cfg)
	a.waitConnected(t, 1)
	if h.online.Load() != 1 || h.refresh.Load() != 1 {
		t.Errorf("online %d refresh %d, want 1 and 1", h.online.Load(), h.refresh.Load())
	}
	a.stop(t)

	// The 401 marked the token spent: a restart without a saved token
	// goes straight to the refresh.
	if err := os.Remove(filepath.Join(cfg.StateDir, tokenFile)); err != nil {
		t.Fatal(err)
	}
	b := start(t, cfg)
	b.waitConnected(t, 1)
	if h.online.Load() != 1 || h.refresh.Load() != 2 {
		t.Errorf("after restart: online %d refresh %d, want 1 and 2", h.online.Load(), h.refresh.Load())
	}
}

func TestTokenReusedAcrossRestarts(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := h.config(t)
	a := start(t, cfg)
	a.waitConnected(t, 1)
	first := h.conn(t, 1)
	a.stop(t)
	waitFor(t, 2*time.Second, "hub saw the close", func() bool {
		select {
		case <-first.closed:
			return true
		default:
			return false
		}
	})

	b := start(t, cfg)
	b.waitConnected(t, 1)
	second := h.conn(t, 2)
	if second.token != first.token {
		t.Error("the restarted agent did not reuse its saved token")
	}
	if h.online.Load() != 1 || h.refresh.Load() != 0 {
		t.Errorf("online %d refresh %d, want 1 and 0", h.online.Load(), h.refresh.Load())
	}
}

func TestConsumedInstallTokenNotReused(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := h.config(t)
	a := start(t, cfg)
	a.waitConnected(t, 1)
	a.stop(t)

	// Lose the token (as if it had expired): the install token is spent,
	// so the agent must use the key refresh, not the install token.
	if err := os.Remove(filepath.Join(cfg.StateDir, tokenFile)); err != nil {
		t.Fatal(err)
	}
	b := start(t, cfg)
	b.waitConnected(t, 1)
	if h.online.Load() != 1 || h.refresh.Load() != 1 {
		t.Errorf("online %d refresh %d, want 1 and 1", h.online.Load(), h.refresh.Load())
	}
}

func TestNewInstallTokenIsNotConsideredSpent(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := h.config(t)
	a := start(t, cfg)
	a.waitConnected(t, 1)
	a.stop(t)

	// Reinstalled with a fresh install token over the same state dir.
	h.with(func(h *fakeHub) { h.install, h.installed = "inst-new", false })
	cfg.InstallToken = "inst-new"
	if err := os.Remove(filepath.Join(cfg.StateDir, tokenFile)); err != nil {
		t.Fatal(err)
	}
	b := start(t, cfg)
	b.waitConnected(t, 1)
	if h.online.Load() != 2 || h.refresh.Load() != 0 {
		t.Errorf("online %d refresh %d, want 2 and 0", h.online.Load(), h.refresh.Load())
	}
}

func TestTokenRenewedAtTwoThirds(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.with(func(h *fakeHub) { h.tokenTTL = 1500 * time.Millisecond })
	a := start(t, h.config(t))
	a.waitConnected(t, 1)
	waitFor(t, 5*time.Second, "renewal", func() bool { return h.refresh.Load() >= 1 })
	h.with(func(h *fakeHub) {
		if gap := h.refreshAt[0].Sub(h.onlineAt[0]); gap < 900*time.Millisecond {
			t.Errorf("renewed %v after issue, want about 2/3 of 1.5s", gap)
		}
	})
	if !a.Status().Connected || h.connCount() != 1 {
		t.Errorf("renewal disturbed the session: %+v, %d connections", a.Status(), h.connCount())
	}
}

func TestPingRoundTrip(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	a := start(t, h.config(t))
	a.waitConnected(t, 1)
	c := h.conn(t, 1)
	id := uuid.NewString()
	before := time.Now().UnixMilli()
	c.cmd(id, agentproto.OpPing, 5*time.Second, nil)
	r := c.resp(t, id)
	if !r.OK || r.Error != nil {
		t.Fatalf("ping: %+v", r)
	}
	var p agentproto.Pong
	if err := json.Unmarshal(r.Result, &p); err != nil {
		t.Fatal(err)
	}
	if p.Version != Version || p.AgentTimeMs < before {
		t.Errorf("pong = %+v", p)
	}
}

func TestCommandRefusals(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	a := start(t, h.config(t))
	a.waitConnected(t, 1)
	c := h.conn(t, 1)

	t.Run("duplicate", func(t *testing.T) {
		id := uuid.NewString()
		c.cmd(id, agentproto.OpPing, 5*time.Second, nil)
		if r := c.resp(t, id); !r.OK {
			t.Fatalf("first: %+v", r)
		}
		c.cmd(id, agentproto.OpPing, 5*time.Second, nil)
		r := c.resp(t, id)
		assertCode(t, r, agentproto.CodeDuplicate)
		battery.Report(t, "T49", "a command id the agent already ran → refused and reported: ok=%v, code %s", r.OK, r.Error.Code)
	})
	t.Run("deadline passed", func(t *testing.T) {
		id := uuid.NewString()
		c.cmd(id, agentproto.OpPing, -time.Second, nil)
		r := c.resp(t, id)
		assertCode(t, r, agentproto.CodeDeadlinePassed)
		battery.Report(t, "T49", "a command 1 s past its deadline → refused and reported: ok=%v, code %s", r.OK, r.Error.Code)
	})
	t.Run("unknown op", func(t *testing.T) {
		id := uuid.NewString()
		c.cmd(id, "agent.no_such_op", 5*time.Second, nil)
		assertCode(t, c.resp(t, id), agentproto.CodeUnknownOp)
	})
}

func assertCode(t *testing.T, r agentproto.Response, code string) {
	t.Helper()
	if r.OK || r.Error == nil || r.Error.Code != code {
		t.Errorf("response %+v (error %+v), want code %s", r, r.Error, code)
	}
}

func TestHandlersRunConcurrently(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := h.config(t)
	reg := NewRegistry()
	release := make(chan struct{})
	var sawDeadline atomic.Bool
	reg.Register("test.slow", func(ctx context.Context, args json.RawMessage) (any, error) {
		dl, ok := ctx.Deadline()
		sawDeadline.Store(ok && time.Until(dl) > 5*time.Second && time.Until(dl) <= 11*time.Second)
		select {
		case <-release:
			return map[string]string{"echo": string(args)}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	reg.Register("test.fail", func(context.Context, json.RawMessage) (any, error) {
		return nil, &agentproto.Error{Code: agentproto.CodeBadArgs, Message: "nope"}
	})
	cfg.Commands = reg
	a := start(t, cfg)
	a.waitConnected(t, 1)
	c := h.conn(t, 1)

	slow, quick := uuid.NewString(), uuid.NewString()
	c.cmd(slow, "test.slow", 10*time.Second, "x")
	c.cmd(quick, agentproto.OpPing, 5*time.Second, nil)
	if r := c.resp(t, quick); !r.OK {
		t.Fatalf("ping behind a slow op: %+v", r)
	}
	close(release)
	r := c.resp(t, slow)
	if !r.OK || string(r.Result) != `{"echo":"\"x\""}` {
		t.Errorf("slow op: %+v %s", r, r.Result)
	}
	if !sawDeadline.Load() {
		t.Error("the handler's context did not carry the command deadline")
	}
	failed := uuid.NewString()
	c.cmd(failed, "test.fail", 5*time.Second, nil)
	assertCode(t, c.resp(t, failed), agentproto.CodeBadArgs)
}

func TestReconnectAfterDrop(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := h.config(t)
	var ups, downs atomic.Int32
	cfg.OnStatus = func(st Status) {
		if st.Connected {
			ups.Add(1)
		} else if st.LastError != "" {
			downs.Add(1)
		}
	}
	a := start(t, cfg)
	a.waitConnected(t, 1)
	_ = h.conn(t, 1).conn.WriteClose(4003, []byte("replaced"))
	a.waitConnected(t, 2)
	if ups.Load() != 2 || downs.Load() < 1 {
		t.Errorf("OnStatus saw %d connects and %d disconnects, want 2 and at least 1", ups.Load(), downs.Load())
	}
	if st := a.Status(); st.Sessions != 2 || st.Since.IsZero() {
		t.Errorf("status %+v", st)
	}
	c := h.conn(t, 2)
	id := uuid.NewString()
	c.cmd(id, agentproto.OpPing, 5*time.Second, nil)
	if r := c.resp(t, id); !r.OK {
		t.Errorf("ping after reconnect: %+v", r)
	}
}

func TestSilentHubIsDropped(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.with(func(h *fakeHub) { h.noAck = true })
	cfg := h.config(t)
	cfg.HeartbeatOverride = 100 * time.Millisecond
	a := start(t, cfg)
	a.waitConnected(t, 1)
	first := h.conn(t, 1)
	select {
	case <-first.closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the agent kept a silent connection")
	}
	h.with(func(h *fakeHub) { h.noAck = false })
	a.waitConnected(t, 2)
	if n := first.heartbeats.Load(); n < 1 {
		t.Errorf("only %d heartbeats before giving up", n)
	}
	if n := first.pings.Load(); n != 0 {
		t.Errorf("%d WebSocket pings sent; heartbeats alone keep the socket (docs/agent.md)", n)
	}
	if !strings.Contains(a.logs.String(), errHubSilent.Error()) {
		t.Error("the drop was not logged")
	}
}

// TestShortHeartbeatAsksForAnswers: a heartbeat override below the hub's
// heartbeat_s (25 s in the fake hub's welcome) puts an id on every
// heartbeat, which a hub always answers, so the agent's three-interval
// silence check does not outrun the hub's own answer cadence.
func TestShortHeartbeatAsksForAnswers(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := h.config(t)
	cfg.HeartbeatOverride = 50 * time.Millisecond
	a := start(t, cfg)
	a.waitConnected(t, 1)
	c := h.conn(t, 1)
	waitFor(t, 5*time.Second, "heartbeats", func() bool { return c.heartbeats.Load() >= 3 })
	if n, ids := c.heartbeats.Load(), c.withID.Load(); ids == 0 || ids < n-1 {
		t.Errorf("%d of %d heartbeats carry an id, want all", ids, n)
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.with(func(h *fakeHub) { h.refusals = []refusal{{status: 503, retryAfter: "1", code: "unavailable"}} })
	a := start(t, h.config(t))
	a.waitConnected(t, 1)
	at := h.attemptTimes()
	if len(at) < 2 {
		t.Fatalf("%d attempts", len(at))
	}
	if gap := at[1].Sub(at[0]); gap < time.Second {
		t.Errorf("retried %v after a 503 with Retry-After: 1", gap)
	}
}

func TestUnauthorizedRefreshesToken(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	a := start(t, h.config(t))
	a.waitConnected(t, 1)
	first := h.conn(t, 1)
	h.revokeAll()
	_ = first.conn.WriteClose(4003, []byte("credentials rotated"))
	a.waitConnected(t, 2)
	if h.refresh.Load() != 1 {
		t.Errorf("refresh %d, want 1", h.refresh.Load())
	}
	if h.conn(t, 2).token == first.token {
		t.Error("reconnected with the revoked token")
	}
}

func TestBannedHostKeepsTryingAtCap(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	banned := refusal{status: 403, code: "host_banned"}
	h.with(func(h *fakeHub) { h.refusals = []refusal{banned, banned, banned} })
	cfg := h.config(t)
	a := start(t, cfg)
	a.waitConnected(t, 1) // the "unban" needs no operator
	at := h.attemptTimes()
	if len(at) != 4 {
		t.Fatalf("%d attempts, want 4", len(at))
	}
	for i := 1; i < 4; i++ {
		if gap := at[i].Sub(at[i-1]); gap < cfg.BackoffCap/2 {
			t.Errorf("attempt %d came %v after a 403, want at least %v", i, gap, cfg.BackoffCap/2)
		}
	}
}

func TestHelloRefusedBacksOff(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.with(func(h *fakeHub) {
		h.helloErr = []*agentproto.Error{{Code: agentproto.CodeUnsupportedProt, Message: "upgrade the agent"}}
	})
	cfg := h.config(t)
	a := start(t, cfg)
	a.waitConnected(t, 1)
	at := h.attemptTimes()
	if gap := at[1].Sub(at[0]); gap < cfg.BackoffCap/2 {
		t.Errorf("retried %v after unsupported_protocol, want at least %v", gap, cfg.BackoffCap/2)
	}
	if !strings.Contains(a.logs.String(), agentproto.CodeUnsupportedProt) {
		t.Error("the hub's error was not logged")
	}
}

func TestFallbackHeartbeatWhileSocketDown(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.with(func(h *fakeHub) { h.refuseAll = &refusal{status: 502, code: "bad_gateway"} })
	cfg := h.config(t)
	cfg.HeartbeatOverride = 50 * time.Millisecond
	a := start(t, cfg)
	waitFor(t, 5*time.Second, "fallback heartbeats", func() bool { return h.heartbeats.Load() >= 2 })
	if a.Status().Connected {
		t.Error("connected through a refusing hub")
	}
	h.with(func(h *fakeHub) { h.refuseAll = nil })
	a.waitConnected(t, 1)
	n := h.heartbeats.Load()
	waitFor(t, 5*time.Second, "heartbeats on the socket", func() bool { return h.socketHeartbeats() >= 4 })
	// One fallback heartbeat may race the connect; more are allowed only
	// if a session was lost to a slow test machine in between.
	if got := h.heartbeats.Load(); int(got-n) > h.connCount() {
		t.Errorf("%d fallback heartbeats while connected (%d sessions)", got-n, h.connCount())
	}
}

func TestStopsPromptlyDuringLongWait(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.with(func(h *fakeHub) { h.refuseAll = &refusal{status: 503, retryAfter: "30", code: "unavailable"} })
	a := start(t, h.config(t))
	waitFor(t, 5*time.Second, "first attempt", func() bool { return len(h.attemptTimes()) >= 1 })
	begin := time.Now()
	a.stop(t)
	if d := time.Since(begin); d > time.Second {
		t.Errorf("stop took %v", d)
	}
}

func TestSecretsNeverLogged(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.with(func(h *fakeHub) { h.tokenTTL = 1500 * time.Millisecond })
	cfg := h.config(t)
	a := start(t, cfg)
	a.waitConnected(t, 1)
	a.log.Info("config", "cfg", cfg)
	a.log.Info(fmt.Sprintf("config %v %+v %#v", cfg, cfg, cfg))

	// A refresh, a 401 and a command add to the log.
	waitFor(t, 5*time.Second, "renewal", func() bool { return h.refresh.Load() >= 1 })
	h.revokeAll()
	_ = h.conn(t, 1).conn.WriteClose(4003, nil)
	a.waitConnected(t, 2)
	c := h.conn(t, 2)
	id := uuid.NewString()
	c.cmd(id, agentproto.OpPing, 5*time.Second, nil)
	c.resp(t, id)
	a.stop(t)

	logs := a.logs.String()
	secrets := map[string]string{"install token": cfg.InstallToken, "seed": cfg.AgentPrivkeySeed, "secret key": cfg.SecretKey}
	h.with(func(h *fakeHub) {
		for i, tok := range h.issued {
			secrets[fmt.Sprintf("agent token %d", i)] = tok
		}
	})
	for what, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("the log contains the %s", what)
		}
	}
	if !strings.Contains(logs, "connected to the hub") {
		t.Errorf("suspiciously empty log:\n%s", logs)
	}
}

func TestRunRefusesBadConfig(t *testing.T) {
	t.Parallel()
	err := Run(context.Background(), Config{}, nil)
	if err == nil || !strings.Contains(err.Error(), ErrInvalidConfig.Error()) {
		t.Fatalf("Run with an empty config: %v", err)
	}
}

// TestDefaultRegistryServesEveryOperation: an agent built without its
// own registry carries out every controls operation of the protocol
// table that is sent to agents.
func TestDefaultRegistryServesEveryOperation(t *testing.T) {
	r := DefaultRegistry("1.2.3")
	for _, op := range []string{agentproto.OpPing, "files.dir_mk", "files.unzip", "files.download", "process.shell",
		"process.kill", "process.list", "system.info", "system.metrics", "system.service", "system.registry",
		"system.scheduled_task", "orchestrate.start", "orchestrate.shutdown"} {
		if _, ok := r.Lookup(op); !ok {
			t.Errorf("the default registry lacks %s", op)
		}
	}
	h, ok := r.Lookup("system.info")
	if !ok {
		t.Fatal("no system.info")
	}
	res, err := h(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := res.(agentproto.SystemInfo); info.AgentVersion != "1.2.3" {
		t.Errorf("system.info reports version %q, want the agent's", info.AgentVersion)
	}
}

// TestReinstallWithNewKeyIgnoresTheOldToken: an installer run again on
// the host brings a new key pair and install token over the same state
// directory, where the agent token of the old key is still saved (and
// still accepted by this fake hub). The new setup wins: the agent enrols
// with the new install token instead of reusing the old key's token.
func TestReinstallWithNewKeyIgnoresTheOldToken(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := h.config(t)
	a := start(t, cfg)
	a.waitConnected(t, 1)
	first := h.conn(t, 1)
	a.stop(t)

	seed := make([]byte, ed25519.SeedSize)
	seed[0] = 1
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	h.with(func(h *fakeHub) { h.seed, h.pub, h.install, h.installed = seed, pub, "inst-reissued", false })
	cfg.InstallToken = "inst-reissued"
	cfg.AgentPrivkeySeed = base64.StdEncoding.EncodeToString(seed)
	cfg.AgentPubkey = "ed25519:" + base64.StdEncoding.EncodeToString(pub)
	b := start(t, cfg)
	b.waitConnected(t, 1)
	if second := h.conn(t, 2); second.token == first.token {
		t.Error("the reinstalled agent reused the old key's saved token")
	}
	if h.online.Load() != 2 {
		t.Errorf("online %d, want 2: the new install token was not used", h.online.Load())
	}
}
