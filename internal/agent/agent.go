// Package agent is the hostgate agent: the process on each managed host
// that keeps a WebSocket to the hub and carries out the hub's commands.
//
// Run enrols the host (spending the install token once, then renewing its
// agent token by ed25519 challenge-response), connects to the hub's agent
// WebSocket, says hello, and then sends heartbeats and metrics while it
// serves commands from a Registry, and terminal sessions on the streams
// the hub opens (terminals.go). It reconnects with capped exponential
// backoff and full jitter, honours Retry-After, renews its token on 401,
// and sends fallback heartbeats over HTTP while the socket is down. The
// wire contract is hostgate/internal/agentproto, with the stream frames of
// hostgate/internal/streams; the agent imports nothing else of the hub.
//
// State (the spent-install-token marker and the current agent token) lives
// in a state directory, written atomically with mode 0600. Tokens, the
// seed and the secret key are never logged.
package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lxzan/gws"

	"hostgate/internal/agent/l1report"
	"hostgate/internal/agent/pty"
	"hostgate/internal/agentproto"
	"hostgate/internal/clip"
	"hostgate/internal/l1"
)

// Version is the agent's version, set at build time with
// -ldflags "-X hostgate/internal/agent.Version=1.2.3".
var Version = "dev"

// skewTolerance is the clock difference to the hub below which command
// deadlines are taken as they are.
const skewTolerance = 2 * time.Second

// closeTooOld is the hub's close code for a protocol it no longer accepts.
const closeTooOld = 4001

// Status is a snapshot of the agent's connection.
type Status struct {
	Connected bool      // a welcomed session is open
	Since     time.Time // when Connected last changed (zero before the first change)
	Sessions  int       // welcomed sessions so far
	LastError string    // why the last attempt or session ended
	L1Listen  string    // the local L1 listener's address; "" while it is not listening
	Reloads   int       // soft restarts with new settings (settings.update) so far
}

// Agent is one running agent. Create it with New; Run it once at a time.
type Agent struct {
	s       *settings
	log     *slog.Logger
	hub     *hubClient
	tokens  *tokenSource
	reg     *Registry
	seen    *idSet
	sampler Sampler
	backoff Backoff

	heartbeat atomic.Int64 // current heartbeat interval (ns)
	skewMs    atomic.Int64 // hub clock minus local clock, from welcome
	running   atomic.Bool
	cmds      sync.WaitGroup
	upg       *upgrader     // this run's; serves agent.upgrade
	l1        *l1Run        // this run's local L1 listener and reporter
	rl        reloader      // settings.update → soft restart
	nonces    *loggedNonces // the local listener's, kept in the state directory
	ptys      *pty.Manager  // the terminal sessions of this Run, over every connection
	watch     *watchDir     // CHANGE_WATCH_DIR's directory, kept in the state directory

	drainMu  sync.Mutex
	draining bool // stopping for a restart: new commands are refused

	mu     sync.Mutex
	status Status
}

// Run validates cfg and runs an agent until ctx is cancelled. It returns
// nil after a clean stop, an error wrapping ErrInvalidConfig for a bad
// config, a *RestartError when the agent stopped to start again from its
// executable (after an upgrade or a rollback), or another error when the
// agent cannot work at all (state directory unusable). Connection
// failures are retried, never returned.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	a, err := New(cfg, log)
	if err != nil {
		return err
	}
	return a.Run(ctx)
}

// New validates cfg and returns an agent ready to Run. log may be nil.
func New(cfg Config, log *slog.Logger) (*Agent, error) {
	s, err := cfg.settings()
	if err != nil {
		return nil, err
	}
	// Fail at once, in one line, when the state directory cannot be
	// written, rather than retrying for ever on every token save.
	dir, err := PrepareStateDir(s.StateDir)
	if err != nil {
		return nil, err
	}
	if err := s.applySavedSettings(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("host_id", s.hostID)
	s.protectKey(log)
	a := &Agent{
		s:       s,
		log:     log,
		reg:     s.Commands,
		seen:    newIDSet(seenIDs),
		sampler: s.Sampler,
		backoff: Backoff{Base: s.BackoffBase, Cap: s.BackoffCap},
		hub: &hubClient{base: s.apiBase, hostID: s.hostID, key: s.key, version: s.AgentVersion,
			http: &http.Client{Timeout: s.HTTPTimeout, Transport: http.DefaultTransport.(*http.Transport).Clone()}},
	}
	// The local listener's nonces outlive the process, so that a request
	// replayed after a restart is refused.
	nonces, err := l1.OpenFileNonces(filepath.Join(dir, l1NoncesFileName), l1NonceLimit)
	if err != nil {
		return nil, err
	}
	a.nonces = &loggedNonces{s: nonces, log: log}
	if a.watch, err = loadWatchDir(stateStore{dir: dir}); err != nil {
		log.Warn("the saved watch directory is not readable; none is watched", "err", err)
	}
	if a.reg == nil {
		a.reg = DefaultRegistry(s.AgentVersion)
	}
	if a.sampler == nil {
		a.sampler = newDefaultSampler()
	}
	a.heartbeat.Store(int64(a.heartbeatInterval(0)))
	return a, nil
}

// Status returns the current connection status.
func (a *Agent) Status() Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status
}

func (a *Agent) setStatus(f func(*Status)) {
	a.mu.Lock()
	f(&a.status)
	st := a.status
	a.mu.Unlock()
	if a.s.OnStatus != nil {
		a.s.OnStatus(st)
	}
}

// Run runs the agent until parent is cancelled; see the package Run.
//
// After a settings.update it restarts softly, in this process: the run's
// commands finish, its hub session and L1 listener close, and a new run
// starts with the new settings (Status.Reloads counts these).
func (a *Agent) Run(parent context.Context) error {
	if !a.running.CompareAndSwap(false, true) {
		return errors.New("agent: already running")
	}
	defer a.running.Store(false)
	a.ptys = pty.NewManager(pty.Config{MaxSessions: a.s.MaxTerminals})
	defer a.ptys.CloseAll()
	reloaded := false
	for {
		err := a.runOnce(parent, reloaded)
		if !errors.Is(err, errReload) {
			return err
		}
		reloaded = a.applyPending()
		a.setStatus(func(st *Status) { st.Reloads++ })
		a.log.Info("agent restarting softly with new settings")
	}
}

// runOnce is one run: from the state directory to the stop. It returns
// errReload when it stopped for a soft restart. reloaded says that this
// run starts with settings a settings.update brought.
func (a *Agent) runOnce(parent context.Context, reloaded bool) error {
	dir, err := PrepareStateDir(a.s.StateDir)
	if err != nil {
		return err
	}
	a.tokens = newTokenSource(a.s, a.hub, stateStore{dir: dir}, a.log)
	a.tokens.load()
	a.log.Info("agent starting", "version", a.s.AgentVersion, "os", osDescription(), "state_dir", dir,
		"ws_url", a.s.wsURL.String(), "api_endpoint", a.s.apiBase)
	if insecure(a.s.wsURL) || insecure(a.s.apiURL) {
		a.log.Warn("the hub connection is not encrypted (ws:// or http://); use wss:// and https:// outside tests")
	}

	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	a.setDraining(false)
	a.beginRun(cancel)
	a.upg = newUpgrader(a, ctx, cancel, dir)
	a.upg.resume()
	var wg sync.WaitGroup
	a.l1 = a.startL1(ctx, &wg)
	if reloaded {
		a.l1.report(l1report.EventSettings, settingsDetail{URL: a.s.ReportURL})
	}
	if a.l1.rep != nil {
		wg.Go(func() { a.runWatch(ctx, cmp.Or(a.s.watchPoll, DefaultWatchPoll), a.l1.report) })
	}
	wg.Go(func() { a.tokens.renewLoop(ctx, a.backoff) })
	wg.Go(func() { a.fallbackLoop(ctx) })
	wg.Go(a.upg.watchConfirm)
	a.connectLoop(ctx)
	cancel(nil)
	a.l1.stop(a)
	wg.Wait()
	a.upg.work.Wait()
	a.rl.work.Wait()
	a.cmds.Wait()
	if re := a.upg.restartRequested(parent); re != nil {
		a.log.Info("agent stopped to restart", "exe", re.Exe, "reason", re.Reason)
		return re
	}
	if parent.Err() == nil && errors.Is(context.Cause(ctx), errReload) {
		return errReload
	}
	a.log.Info("agent stopped")
	return nil
}

func (a *Agent) setDraining(v bool) {
	a.drainMu.Lock()
	defer a.drainMu.Unlock()
	a.draining = v
}

// connectLoop connects, serves, and reconnects after a delay from
// retryDelay, until ctx is cancelled.
func (a *Agent) connectLoop(ctx context.Context) {
	attempt := 0
	for ctx.Err() == nil {
		lasted, err := a.connect(ctx)
		if ctx.Err() != nil {
			return
		}
		if lasted >= a.s.BackoffReset {
			attempt = 0
		}
		delay := retryDelay(a.backoff, err, attempt)
		attempt++
		a.log.Warn("not connected to the hub; retrying", "err", err, "retry_in", delay.Round(time.Millisecond), "attempt", attempt)
		if !sleep(ctx, delay) {
			return
		}
	}
}

// retryDelay is the wait before the next attempt after err: the backoff
// delay, at least the hub's Retry-After (plus jitter), and near the cap
// while the hub refuses the host outright (403, protocol too old).
func retryDelay(b Backoff, err error, attempt int) time.Duration {
	d := b.Delay(attempt)
	var he *HubError
	var ce *gws.CloseError
	var pe *agentproto.Error
	switch {
	case errors.As(err, &he) && he.Status == http.StatusForbidden:
		return b.AtCap()
	case errors.As(err, &he) && he.RetryAfter > 0:
		return max(d, he.RetryAfter+b.jitter(b.Base))
	case errors.As(err, &ce) && ce.Code == closeTooOld,
		errors.As(err, &pe) && pe.Code == agentproto.CodeUnsupportedProt:
		return b.AtCap()
	}
	return d
}

// connect runs one session: token, upgrade, hello/welcome, serve. It
// returns how long the session was up (0 when it never was) and why it
// ended.
func (a *Agent) connect(ctx context.Context) (time.Duration, error) {
	tok, err := a.tokens.Token(ctx)
	if err != nil {
		return 0, a.ended(err)
	}
	s := newSession(ctx, a)
	conn, err := a.dial(ctx, s, tok)
	if err != nil {
		if statusOf(err) == http.StatusUnauthorized {
			a.tokens.Invalidate(tok)
		}
		return 0, a.ended(err)
	}
	s.conn = conn
	go conn.ReadLoop()
	w, err := a.hello(ctx, s)
	if err != nil {
		s.finish(1000, "handshake failed")
		return 0, a.ended(err)
	}
	start := time.Now()
	a.welcomed(w)
	a.l1.report(l1report.EventOnline, onlineDetail{AgentVersion: a.s.AgentVersion, Session: a.Status().Sessions, L1Listen: a.Status().L1Listen})
	a.upg.attach(s)
	s.startStreams()
	err = a.serve(ctx, s, w)
	a.upg.detach(s)
	s.waitStreams()
	return time.Since(start), a.ended(err)
}

// ended records why an attempt or session ended.
func (a *Agent) ended(err error) error {
	if err == nil {
		err = errClosed
	}
	a.setStatus(func(st *Status) {
		if st.Connected {
			st.Since = time.Now()
		}
		st.Connected, st.LastError = false, err.Error()
	})
	return err
}

func (a *Agent) welcomed(w agentproto.Welcome) {
	if w.ServerTime > 0 {
		// The estimate includes the welcome's transit time; small values
		// are that noise, not clock skew.
		skew := time.Duration(w.ServerTime-time.Now().UnixMilli()) * time.Millisecond
		if skew.Abs() < skewTolerance {
			skew = 0
		}
		a.skewMs.Store(skew.Milliseconds())
		if skew.Abs() > 30*time.Second {
			a.log.Warn("the local clock differs from the hub's", "skew", skew.String())
		}
	}
	a.setStatus(func(st *Status) {
		st.Connected, st.Since, st.LastError = true, time.Now(), ""
		st.Sessions++
	})
	a.log.Info("connected to the hub", "heartbeat_s", w.HeartbeatS, "metrics_s", w.MetricsS, "protocol", w.Protocol)
}

// hello sends hello and waits for welcome.
func (a *Agent) hello(ctx context.Context, s *session) (agentproto.Welcome, error) {
	host, _ := os.Hostname()
	err := s.send(agentproto.TypeHello, "", agentproto.Hello{
		Protocol: agentproto.Version, AgentVersion: a.s.AgentVersion, OS: osDescription(), Hostname: host,
		SettingsFP: a.settingsFingerprint(),
	})
	if err != nil {
		return agentproto.Welcome{}, err
	}
	t := time.NewTimer(a.s.WelcomeTimeout)
	defer t.Stop()
	select {
	case r := <-s.welcome:
		return r.w, r.err
	case <-s.done:
		select { // an error envelope just before the close says more
		case r := <-s.welcome:
			if r.err != nil {
				return r.w, r.err
			}
		default:
		}
		return agentproto.Welcome{}, fmt.Errorf("closed before welcome: %w", s.closeErr)
	case <-t.C:
		return agentproto.Welcome{}, errWelcomeTimeout
	case <-ctx.Done():
		return agentproto.Welcome{}, ctx.Err()
	}
}

// finish closes the session and waits for its read loop to end.
func (s *session) finish(code uint16, reason string) {
	s.close(code, reason)
	<-s.done
}

// serve runs a welcomed session: heartbeats, the silence check and the
// metrics loop, until the socket closes or ctx ends.
func (a *Agent) serve(ctx context.Context, s *session, w agentproto.Welcome) error {
	hb := a.heartbeatInterval(w.HeartbeatS)
	a.heartbeat.Store(int64(hb))
	// Heartbeats more frequent than the hub's each ask for an answer (an
	// id): the hub answers one without only after 40 s of its own quiet,
	// longer than three such intervals.
	askAck := hb < a.hubHeartbeat(w.HeartbeatS)
	var sent int
	mctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { a.metricsLoop(mctx, s, a.metricsInterval(w.MetricsS)) })
	defer wg.Wait()
	defer stop()

	t := time.NewTicker(hb)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.finish(1000, "agent stopping")
			return ctx.Err()
		case <-s.done:
			return s.closeErr
		case <-t.C:
			if s.silentFor() > idleFactor*hb {
				s.finish(1000, "hub silent")
				return errHubSilent
			}
			// No WebSocket ping besides: the heartbeat keeps proxies from
			// cutting the idle socket, and the hub answers at least every
			// other one (docs/agent-protocol.md); a ping would double what
			// every idle agent costs the hub.
			id := ""
			if askAck {
				sent++
				id = "hb-" + strconv.Itoa(sent)
			}
			if err := s.send(agentproto.TypeHeartbeat, id, nil); err != nil {
				a.log.Debug("heartbeat failed", "err", err)
				continue // the failed write closed the socket; done follows
			}
		}
	}
}

// metricsLoop sends one sample at once and then one every interval.
func (a *Agent) metricsLoop(ctx context.Context, s *session, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		sctx, cancel := context.WithTimeout(ctx, every)
		m, err := a.sampler.Sample(sctx)
		cancel()
		if err != nil {
			a.log.Debug("metrics sample failed", "err", err)
		} else if err := s.send(agentproto.TypeMetrics, "", m); err != nil {
			a.log.Debug("metrics not sent", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-t.C:
		}
	}
}

func (a *Agent) heartbeatInterval(welcomeS int) time.Duration {
	if a.s.HeartbeatOverride > 0 {
		return a.s.HeartbeatOverride
	}
	return a.hubHeartbeat(welcomeS)
}

// hubHeartbeat is the hub's heartbeat interval: welcome.heartbeat_s, else
// the default.
func (a *Agent) hubHeartbeat(welcomeS int) time.Duration {
	if welcomeS > 0 {
		return time.Duration(welcomeS) * time.Second
	}
	return DefaultHeartbeat
}

func (a *Agent) metricsInterval(welcomeS int) time.Duration {
	switch {
	case a.s.MetricsOverride > 0:
		return a.s.MetricsOverride
	case welcomeS > 0:
		return time.Duration(welcomeS) * time.Second
	}
	return DefaultMetrics
}

// fallbackLoop posts a heartbeat every heartbeat interval while the
// WebSocket is down, with the token the agent already holds.
func (a *Agent) fallbackLoop(ctx context.Context) {
	for sleep(ctx, time.Duration(a.heartbeat.Load())) {
		if a.Status().Connected {
			continue
		}
		tok, ok := a.tokens.peek()
		if !ok {
			continue
		}
		hctx, cancel := context.WithTimeout(ctx, a.s.HTTPTimeout)
		err := a.hub.heartbeat(hctx, tok)
		cancel()
		switch {
		case err == nil:
			a.log.Debug("fallback heartbeat sent")
		case statusOf(err) == http.StatusUnauthorized:
			a.tokens.Invalidate(tok)
			fallthrough
		default:
			a.log.Debug("fallback heartbeat failed", "err", err)
		}
	}
}

// command checks one cmd and starts its handler; refusals are answered
// at once.
func (a *Agent) command(s *session, e agentproto.Envelope) {
	if e.ID == "" {
		a.log.Warn("ignoring a command without id")
		return
	}
	var c agentproto.Command
	if err := agentproto.DecodeBody(e, &c); err != nil {
		a.reply(s, e.ID, agentproto.Response{Error: cmdError(agentproto.CodeBadArgs, "malformed command")})
		return
	}
	h, refusal := a.admit(s, e.ID, c)
	if refusal != nil {
		a.log.Info("command refused", "id", e.ID, "op", c.Op, "code", refusal.Code)
		a.reply(s, e.ID, agentproto.Response{Error: refusal})
		return
	}
	if c.Op == opSettingsUpdate {
		// Served at once, even while draining, so that a second change
		// made during a soft restart is not lost; the restart starts
		// after the answer is on its way.
		res, restart, err := a.settingsUpdate(c.Args)
		a.reply(s, e.ID, response(res, err))
		if restart {
			a.scheduleReload()
		}
		return
	}
	skew := time.Duration(a.skewMs.Load()) * time.Millisecond
	deadline := time.UnixMilli(c.DeadlineMs).Add(-skew) // on the local clock
	started := a.goCommand(func() {
		ctx := context.WithValue(s.ctx, versionKey{}, a.s.AgentVersion)
		ctx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		res, err := call(ctx, h, c.Args)
		r := response(res, err)
		a.log.Debug("command done", "id", e.ID, "op", c.Op, "ok", r.OK)
		a.reply(s, e.ID, r)
	})
	if !started {
		a.reply(s, e.ID, agentproto.Response{Error: cmdError(agentproto.CodeFailed, "the agent is restarting; retry in a moment")})
	}
}

// admit returns the handler of a command, or why it is refused.
func (a *Agent) admit(s *session, id string, c agentproto.Command) (Handler, *agentproto.Error) {
	if !a.seen.Add(id) {
		return nil, cmdError(agentproto.CodeDuplicate, "command id already seen")
	}
	hubNow := time.Now().Add(time.Duration(a.skewMs.Load()) * time.Millisecond)
	if hubNow.UnixMilli() >= c.DeadlineMs {
		return nil, cmdError(agentproto.CodeDeadlinePassed, "command deadline has passed")
	}
	h, ok := a.builtin(s, c.Op)
	if !ok {
		h, ok = a.lookup(c.Op)
	}
	if !ok {
		return nil, cmdError(agentproto.CodeUnknownOp, "unknown op "+clip.String(c.Op, 64))
	}
	return h, nil
}

// builtin returns the handler of an op the agent serves itself, whatever
// its Registry: agent.upgrade needs the agent (to report on the current
// session and to stop for the restart), and shell.resize the session the
// command came on (stream ids belong to a connection), which a registered
// handler lacks.
func (a *Agent) builtin(s *session, op string) (Handler, bool) {
	switch op {
	case agentproto.OpUpgrade:
		return a.upg.handle, true
	case agentproto.OpShellResize:
		return s.resizeTerminal, true
	case opSettingsUpdate:
		return nil, true // served by command itself
	case agentproto.OpL1Nonce:
		return a.l1Nonce, true
	}
	return nil, false
}

func (a *Agent) reply(s *session, id string, r agentproto.Response) {
	if err := s.send(agentproto.TypeCmdResp, id, r); err != nil {
		a.log.Warn("command response lost", "id", id, "err", err)
	}
}
