package agent

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"hostgate/internal/agent/l1local"
	"hostgate/internal/agent/l1report"
	"hostgate/internal/agentproto"
	"hostgate/internal/l1"
)

// opSettingsUpdate is the op of CtlSettingsUpdate, which the agent serves
// itself: it changes the agent's own settings.
var opSettingsUpdate = agentproto.OpName(agentproto.CtlSettingsUpdate)

// errReload is the cause a run is stopped with to start again, in the
// same process, with new L1 settings.
var errReload = errors.New("agent: reloading with new settings")

// l1NonceLimit bounds the local listener's replay memory.
const l1NonceLimit = 100_000

// l1NoncesFileName is the local listener's replay memory in the state
// directory (l1.FileNonces).
const l1NoncesFileName = "l1-nonces"

// loggedNonces refuses a request whose nonce cannot be stored, as the
// store does, and logs the first error of each run of them.
type loggedNonces struct {
	s      l1.NonceStore
	log    *slog.Logger
	failed atomic.Bool
}

func (n *loggedNonces) AddNonce(ctx context.Context, scope, nonce string, now, until time.Time) (bool, error) {
	added, err := n.s.AddNonce(ctx, scope, nonce, now, until)
	if err != nil && !errors.Is(err, l1.ErrNoncesFull) {
		if !n.failed.Swap(true) {
			n.log.Error("L1 requests are refused: their nonces cannot be stored", "err", err)
		}
	} else if err == nil && n.failed.Swap(false) {
		n.log.Info("L1 nonces are stored again")
	}
	return added, err
}

// l1ClockMargin is added to how long a nonce is kept, for the error of
// the measured hub clock offset (a welcome's round trip at most).
const l1ClockMargin = 5 * time.Second

// nonceUntil is until which the agent keeps a nonce whose message every
// receiver refuses from expiry on (l1.Request.NonceExpiry), on the agent's
// clock. The hub compares expiry with its own clock, so when the hub's
// clock is behind the agent's the nonce is kept that much longer (plus
// l1ClockMargin): a message the hub may still accept is never forgotten
// here, in either order of the two receivers. Whole seconds, as the file
// stores them.
func (a *Agent) nonceUntil(expiry time.Time) time.Time {
	behind := -time.Duration(a.skewMs.Load()) * time.Millisecond // hub clock behind the agent's
	ext := max(behind, 0) + l1ClockMargin
	return expiry.Add(ext + time.Second - 1).Truncate(time.Second)
}

// sharedNonces is the replay memory of the host's L1 messages on this
// agent, shared by the local listener and the nonces the hub records
// (l1Nonce): the state directory's file, with each nonce kept as long as
// either receiver may accept its message (nonceUntil).
type sharedNonces struct{ a *Agent }

func (n sharedNonces) AddNonce(ctx context.Context, scope, nonce string, now, until time.Time) (bool, error) {
	return n.a.nonces.AddNonce(ctx, scope, nonce, now, n.a.nonceUntil(until))
}

// l1Nonce serves agentproto.OpL1Nonce: the hub accepted an L1 message on
// /gateway and asks, before it charges and sends the message's control,
// whether this agent's listener (or an earlier /gateway request) already
// used its nonce. The nonce is recorded, synced to disk, under the scope
// the listener checks for the message's bid; Recorded is false when it
// was already there, and the hub then refuses the message. A nonce that
// cannot be stored is an error: the hub carries nothing out, as the
// listener refuses a request whose nonce it cannot store.
func (a *Agent) l1Nonce(ctx context.Context, raw json.RawMessage) (any, error) {
	n, err := agentproto.DecodeL1Nonce(raw)
	if err != nil {
		return nil, err
	}
	if err := l1.ValidateNonce(n.Nonce); err != nil {
		return nil, agentproto.ArgsError("%v", err)
	}
	added, err := sharedNonces{a}.AddNonce(ctx, l1local.Scope(n.BID), n.Nonce, time.Now(), time.Unix(n.ExpiresAt, 0))
	switch {
	case errors.Is(err, l1.ErrNoncesFull):
		return nil, cmdError(agentproto.CodeFailed, "the agent's L1 nonce memory is full")
	case err != nil:
		return nil, cmdError(agentproto.CodeFailed, "the agent cannot record the L1 nonce") // logged by loggedNonces
	}
	if !added {
		a.log.Info("L1 message refused: its nonce was already used on this host", "via", "hub")
	}
	return agentproto.L1NonceResult{Recorded: added}, nil
}

// l1ExecLimit bounds one control carried out for the local listener.
const l1ExecLimit = 10 * time.Minute

// l1Shutdown is how long a stopping run waits for L1 requests in flight.
const l1Shutdown = 5 * time.Second

// reloader holds a settings change between the command that accepted it
// and the run that starts with it.
type reloader struct {
	mu        sync.Mutex
	stop      context.CancelCauseFunc // the current run's
	pending   *l1Settings             // accepted, not yet running
	scheduled bool                    // the current run is being stopped for pending
	work      sync.WaitGroup          // the drain-and-stop of the current run
}

// settingsUpdate serves settings.update: it validates the args, writes
// them where the next start reads them, and answers; the caller then
// calls scheduleReload when restart is true. An update equal to what the
// agent runs with (or is about to) changes nothing.
func (a *Agent) settingsUpdate(raw json.RawMessage) (res any, restart bool, err error) {
	l, err := checkSettingsUpdate(raw)
	if err != nil {
		return nil, false, err
	}
	a.rl.mu.Lock()
	defer a.rl.mu.Unlock()
	current := a.s.l1()
	if a.rl.pending != nil {
		current = *a.rl.pending
	}
	if l == current {
		return settingsResult{Restarting: false}, false, nil
	}
	if err := a.s.persistSettings(l, time.Now()); err != nil {
		a.log.Error("settings not saved", "err", err)
		return nil, false, cmdError(agentproto.CodeFailed, "cannot save the settings: "+err.Error())
	}
	a.rl.pending = &l
	a.log.Info("new L1 settings saved; restarting softly", "bid", l.BID, "report_url_set", l.ReportURL != "")
	return settingsResult{Restarting: true}, true, nil
}

// settingsResult is the result of settings.update.
type settingsResult struct {
	// Restarting is true when the agent restarts with the new settings
	// (its hub connection drops and comes back); false when they were
	// already the agent's.
	Restarting bool `json:"restarting"`
}

// scheduleReload stops the current run once its commands are done (at
// most restartDrain), so that Run starts again with the pending settings.
func (a *Agent) scheduleReload() {
	a.rl.mu.Lock()
	defer a.rl.mu.Unlock()
	if a.rl.scheduled || a.rl.stop == nil {
		return
	}
	a.rl.scheduled = true
	stop := a.rl.stop
	a.rl.work.Go(func() {
		a.drain(restartDrain)
		stop(errReload)
	})
}

// beginRun records the new run's stop function.
func (a *Agent) beginRun(stop context.CancelCauseFunc) {
	a.rl.mu.Lock()
	defer a.rl.mu.Unlock()
	a.rl.stop, a.rl.scheduled = stop, false
}

// applyPending makes the pending settings the agent's, for the next run.
// It reports whether there were any.
func (a *Agent) applyPending() bool {
	a.rl.mu.Lock()
	defer a.rl.mu.Unlock()
	a.rl.stop = nil
	if a.rl.pending == nil {
		return false
	}
	a.s = a.s.with(*a.rl.pending)
	a.rl.pending = nil
	return true
}

// l1Run is the run's local L1 listener and reporter; either may be nil.
type l1Run struct {
	srv *l1local.Server
	rep *l1report.Reporter
}

// startL1 starts the run's L1 listener and reporter, as far as the
// settings allow. Failures are logged: L1 is not worth stopping the agent.
func (a *Agent) startL1(ctx context.Context, wg *sync.WaitGroup) *l1Run {
	r := &l1Run{}
	if a.s.BID <= 0 || a.s.SecretKey == "" {
		a.log.Info("L1 is off: no bid or secret key")
		return r
	}
	codec, err := l1.NewCodec(a.s.BID, a.s.SecretKey)
	if err != nil {
		a.log.Warn("L1 is off: the secret key is not usable", "err", err)
		return r
	}
	if a.s.ReportURL != "" {
		r.rep, err = l1report.New(l1report.Config{Codec: codec, URL: a.s.ReportURL,
			Log: a.log.With("component", "l1report"), RetryBase: a.s.l1ReportRetry})
		if err != nil {
			a.log.Warn("L1 reverse reporting is off", "err", err)
		} else {
			wg.Go(func() { r.rep.Run(ctx) })
		}
	}
	if a.s.L1Listen == L1ListenOff {
		return r
	}
	srv := l1local.New(l1local.Config{Codec: codec, Nonces: sharedNonces{a}, Exec: a.execL1, Done: r.controlDone,
		Log: a.log.With("component", "l1local")})
	if err := srv.Listen(a.s.L1Listen); err != nil {
		a.log.Warn("L1 listener not started", "addr", a.s.L1Listen, "err", err)
		return r
	}
	r.srv = srv
	a.setStatus(func(st *Status) { st.L1Listen = srv.Addr().String() })
	a.log.Info("L1 listener started", "addr", srv.Addr().String(), "bid", a.s.BID)
	if !isLoopback(srv.Addr()) {
		a.log.Warn("the L1 listener is reachable from the network; L1 has no transport encryption of its answers")
	}
	return r
}

// stop shuts the listener down, waiting a little for requests in flight.
func (r *l1Run) stop(a *Agent) {
	if r.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), l1Shutdown)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
	a.setStatus(func(st *Status) { st.L1Listen = "" })
}

// report queues an event when reporting is on.
func (r *l1Run) report(event string, detail any) {
	if r != nil && r.rep != nil {
		r.rep.Report(event, detail)
	}
}

// controlDone reports a local L1 control that was carried out or failed.
func (r *l1Run) controlDone(control int64, resp l1.Response) {
	name := ""
	if c, ok := agentproto.ControlByValue(control); ok {
		name = c.Name
	}
	r.report(l1report.EventControl, controlDetail{Control: control, Name: name, Code: resp.Code, Msg: resp.Msg})
}

// Details of the reports (docs/l1.md, "Reverse reporting").
type (
	onlineDetail struct {
		AgentVersion string `json:"agent_version"`
		Session      int    `json:"session"`
		L1Listen     string `json:"l1_listen"`
	}
	settingsDetail struct {
		URL string `json:"url"`
	}
	controlDetail struct {
		Control int64  `json:"control"`
		Name    string `json:"name"`
		Code    int    `json:"code"`
		Msg     string `json:"msg"`
	}
)

// execL1 carries out a legacy control for the local listener through the
// agent's registry, as a command: it is refused while the agent drains
// for a restart, and a restart waits for it.
func (a *Agent) execL1(ctx context.Context, control int64, args agentproto.ControlArgs) (json.RawMessage, error) {
	c, ok := agentproto.ControlByValue(control)
	if !ok {
		return nil, agentproto.UnsupportedControl(control)
	}
	if c.Carry == agentproto.NotImplemented {
		return nil, agentproto.NotImplementedError(c)
	}
	h, ok := a.lookup(c.Op)
	if !ok {
		return nil, cmdError(agentproto.CodeUnknownOp, c.Name+" is not supported by this agent")
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	var resp agentproto.Response
	done := make(chan struct{})
	started := a.goCommand(func() {
		defer close(done)
		cctx, cancel := context.WithTimeout(context.WithValue(ctx, versionKey{}, a.s.AgentVersion), l1ExecLimit)
		defer cancel()
		resp = response(call(cctx, h, raw))
	})
	if !started {
		return nil, cmdError(agentproto.CodeFailed, "the agent is restarting; retry in a moment")
	}
	<-done
	if resp.Error != nil {
		return nil, resp.Error
	}
	return resp.Result, nil
}

func isLoopback(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// settingsFingerprint is what hello carries so that the hub can tell
// whether this agent missed a settings change; "" without L1 settings.
func (a *Agent) settingsFingerprint() string {
	if a.s.BID <= 0 || a.s.SecretKey == "" {
		return ""
	}
	return agentproto.SettingsUpdate{BID: a.s.BID, SecretKey: a.s.SecretKey, URL: a.s.ReportURL}.Fingerprint()
}
