package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"hostgate/internal/agent/upgrade"
	"hostgate/internal/agentproto"
	"hostgate/internal/clip"
)

// maxReason bounds the reason of an upgrade report.
const maxReason = 500

// restartDrain bounds how long in-flight commands may take to finish when
// the agent stops to restart after an upgrade.
const restartDrain = 30 * time.Second

// upgrader serves agent.upgrade and carries an upgrade across the
// restart. It keeps the pending-upgrade record in the state directory at
// every step, so whichever process starts next knows how things stand,
// and reports each step to the hub. The latest report is sent again after
// every welcome, so one made while disconnected is not lost (the hub
// treats reports idempotently), until a final one has been delivered.
//
// One upgrader lives for one Run.
type upgrader struct {
	a              *Agent
	log            *slog.Logger
	dir            string // state directory
	exe            string // the running executable; "" when unknown
	version        string // this process's version
	probe          func(ctx context.Context, exe, version string) error
	confirmTimeout time.Duration

	ctx  context.Context         // the run's; bounds the background work
	stop context.CancelCauseFunc // ends the run; a *RestartError cause is what Run returns
	work sync.WaitGroup          // the background download, checks and swap

	busy atomic.Bool // an upgrade is under way, or this process awaits confirmation

	// mu guards what follows. It is held while a report is written, so
	// that reports reach the hub in the order they were made.
	mu        sync.Mutex
	sess      *session                  // the welcomed session; nil while disconnected
	rec       *upgrade.Record           // the upgrade whose end is not yet reported; nil when none
	latest    *agentproto.UpgradeReport // the report to send after each welcome
	delivered bool                      // latest was written to a welcomed session
	awaiting  bool                      // this is the new executable, not yet welcomed
	confirmed chan struct{}             // closed at the first welcome while awaiting
	rollAt    time.Time                 // when an unwelcomed new executable rolls back
}

func newUpgrader(a *Agent, ctx context.Context, stop context.CancelCauseFunc, dir string) *upgrader {
	return &upgrader{
		a: a, log: a.log.With("component", "upgrade"), dir: dir, exe: a.s.Executable, version: a.s.AgentVersion,
		probe: a.s.probe, confirmTimeout: a.s.UpgradeConfirmTimeout, ctx: ctx, stop: stop,
	}
}

// resume picks up the record an earlier process left: it makes this
// process await confirmation when it is the new executable, and otherwise
// queues the report of how the upgrade ended, sent after the welcome.
func (u *upgrader) resume() {
	rec, err := upgrade.LoadRecord(u.dir)
	switch {
	case errors.Is(err, upgrade.ErrCorruptRecord):
		u.log.Warn("removing the corrupt upgrade record", "err", err)
		if err := upgrade.ClearRecord(u.dir); err != nil {
			u.log.Warn("cannot remove the upgrade record", "err", err)
		}
	case err != nil:
		// Perhaps held open for a moment (Windows); the next start
		// reads it again.
		u.log.Warn("cannot read the upgrade record; leaving it for the next start", "err", err)
	}
	isNew := rec != nil && rec.State == agentproto.UpgradeRestarting && rec.Version == u.version
	u.cleanup(isNew)
	if rec == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.rec = rec
	switch {
	case isNew:
		u.awaitConfirmLocked()
	case rec.State == agentproto.UpgradeRestarting:
		_ = u.setLocked(agentproto.UpgradeRolledBack, fmt.Sprintf("the agent restarted as version %s, not %s", u.version, rec.Version))
	case rec.State.Terminal():
		u.publishLocked(rec.Report())
	default: // downloading or verifying when the process ended
		_ = u.setLocked(agentproto.UpgradeFailed, "agent restarted during the upgrade")
	}
}

// awaitConfirmLocked makes this process, the new executable, wait for
// the hub's welcome. The wait counts from its first start, recorded now
// if this is it.
func (u *upgrader) awaitConfirmLocked() {
	now := time.Now().UTC()
	if u.rec.StartedAt.IsZero() || u.rec.StartedAt.After(now) {
		u.rec.StartedAt = now
		if err := upgrade.SaveRecord(u.dir, *u.rec); err != nil {
			u.log.Warn("cannot write the upgrade record", "err", err)
		}
	}
	u.awaiting, u.confirmed = true, make(chan struct{})
	u.rollAt = u.rec.StartedAt.Add(u.confirmTimeout)
	u.busy.Store(true)
	u.log.Info("running the upgraded executable; it is kept once the hub welcomes it",
		"version", u.version, "from_version", u.rec.FromVersion, "first_started", u.rec.StartedAt,
		"confirm_timeout", u.confirmTimeout.String())
}

// cleanup removes what earlier upgrades left beside the executable; the
// backup stays while this process awaits confirmation.
func (u *upgrader) cleanup(keepBackup bool) {
	if u.exe == "" {
		u.log.Warn("cannot find the agent's executable; upgrades will be refused")
		return
	}
	if err := upgrade.Cleanup(u.exe, keepBackup); err != nil {
		// A file of a process still exiting (Windows); next start.
		u.log.Info("could not remove all upgrade leftovers", "err", err)
	}
}

// handle is the agent.upgrade operation: it checks the arguments, answers
// at once and leaves the work to a background goroutine.
func (u *upgrader) handle(_ context.Context, raw json.RawMessage) (any, error) {
	var req agentproto.Upgrade
	if len(raw) == 0 || json.Unmarshal(raw, &req) != nil {
		return nil, cmdError(agentproto.CodeBadArgs, "args must be {version, exe_url, exe_sha256, exe_size_bytes}")
	}
	req, err := upgrade.Check(req)
	if err != nil {
		return nil, cmdError(agentproto.CodeBadArgs, err.Error())
	}
	if req.Version == u.version {
		u.mu.Lock()
		u.publishLocked(agentproto.UpgradeReport{Version: req.Version, State: agentproto.UpgradeDone})
		u.mu.Unlock()
		return agentproto.UpgradeAccepted{State: agentproto.UpgradeDone}, nil
	}
	if u.exe == "" {
		return nil, cmdError(agentproto.CodeFailed, "the agent cannot find its own executable, so it cannot replace it")
	}
	if !u.busy.CompareAndSwap(false, true) {
		return nil, cmdError(agentproto.CodeFailed, "another upgrade is already in progress"+u.inProgress())
	}
	if err := u.begin(req); err != nil {
		u.busy.Store(false)
		return nil, cmdError(agentproto.CodeFailed, err.Error())
	}
	// The URL stays out of the log: a signed link is a credential.
	u.log.Info("upgrade accepted", "version", req.Version, "size", req.ExeSize)
	u.work.Go(func() { u.run(req) })
	return agentproto.UpgradeAccepted{State: agentproto.UpgradeDownloading}, nil
}

// begin records a new upgrade as downloading. Without the record the next
// process could neither confirm nor roll back, so failing to write it
// refuses the upgrade.
func (u *upgrader) begin(req agentproto.Upgrade) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.rec = &upgrade.Record{Version: req.Version, FromVersion: u.version, Exe: u.exe, Backup: upgrade.BackupPath(u.exe)}
	if err := u.setLocked(agentproto.UpgradeDownloading, ""); err != nil {
		u.rec = nil
		_ = upgrade.ClearRecord(u.dir)
		return fmt.Errorf("cannot write the upgrade record: %w", err)
	}
	return nil
}

func (u *upgrader) inProgress() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.rec == nil {
		return ""
	}
	return fmt.Sprintf(" (to version %s, %s)", u.rec.Version, u.rec.State)
}

// run downloads, checks and swaps in the new executable, then stops the
// agent for the restart. A failure leaves the running executable as it
// was and reports why.
func (u *upgrader) run(req agentproto.Upgrade) {
	staged, digest, err := upgrade.Download(u.ctx, req, u.exe)
	if err != nil {
		u.fail(err, "")
		return
	}
	if err := u.advance(agentproto.UpgradeVerifying); err != nil {
		u.fail(err, staged)
		return
	}
	if err := upgrade.Verify(req, digest); err != nil {
		u.fail(err, staged)
		return
	}
	if err := u.probe(u.ctx, staged, req.Version); err != nil {
		u.fail(err, staged)
		return
	}
	// The record says restarting before the swap: a crash after it makes
	// the next process, whichever version it is, finish the upgrade.
	if err := u.advance(agentproto.UpgradeRestarting); err != nil {
		u.fail(err, staged)
		return
	}
	if _, err := upgrade.Swap(u.exe, staged); err != nil {
		u.fail(err, staged)
		return
	}
	u.log.Info("the new executable is in place; restarting", "version", req.Version)
	u.restart(&RestartError{Exe: u.exe, Reason: "upgrade to " + req.Version, stateDir: u.dir})
}

// advance records and reports the next step of the upgrade under way.
func (u *upgrader) advance(state agentproto.UpgradeState) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if err := u.setLocked(state, ""); err != nil {
		return fmt.Errorf("cannot write the upgrade record: %w", err)
	}
	return nil
}

// fail ends the upgrade under way as failed, removing the staged file.
func (u *upgrader) fail(err error, staged string) {
	if staged != "" {
		if rerr := os.Remove(staged); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			u.log.Warn("cannot remove the downloaded executable", "err", rerr)
		}
	}
	u.log.Warn("upgrade failed; keeping the running executable", "err", err)
	u.mu.Lock()
	defer u.mu.Unlock()
	// Free before the report goes out: the hub may push again as soon as
	// it reads it. A new upgrade's begin waits for mu, so it follows this
	// report.
	u.busy.Store(false)
	_ = u.setLocked(agentproto.UpgradeFailed, err.Error())
}

// restart stops the run so that Run returns re: new commands are refused,
// in-flight ones get restartDrain to finish, then the run's context ends
// with re as its cause, which closes the session normally.
func (u *upgrader) restart(re *RestartError) {
	u.a.drain(restartDrain)
	u.stop(re)
}

// restartRequested is the RestartError the run was stopped with, or nil.
// A stop asked for from outside (parent done) wins: the supervisor's next
// start then finishes the upgrade from the record.
func (u *upgrader) restartRequested(parent context.Context) *RestartError {
	var re *RestartError
	if parent.Err() == nil && errors.As(context.Cause(u.ctx), &re) {
		return re
	}
	return nil
}

// watchConfirm rolls back when this process is the new executable and
// the hub has not welcomed it within the confirm timeout.
func (u *upgrader) watchConfirm() {
	u.mu.Lock()
	awaiting, confirmed, wait := u.awaiting, u.confirmed, time.Until(u.rollAt)
	u.mu.Unlock()
	if !awaiting {
		return
	}
	t := time.NewTimer(max(wait, 0))
	defer t.Stop()
	select {
	case <-confirmed:
	case <-u.ctx.Done():
	case <-t.C:
		if re := u.rollback(); re != nil {
			u.restart(re)
		}
	}
}

// rollback puts the previous executable back and records why; it returns
// the restart into it, or nil when this process keeps running (it was
// welcomed meanwhile, or there is no previous executable to go back to).
func (u *upgrader) rollback() *RestartError {
	u.mu.Lock()
	defer u.mu.Unlock()
	if !u.awaiting {
		return nil
	}
	reason := fmt.Sprintf("version %s was not accepted by the hub within %s", u.version, u.confirmTimeout)
	u.log.Warn("rolling back to the previous executable", "reason", reason, "from_version", u.rec.FromVersion)
	if err := upgrade.Restore(u.rec.Exe, u.rec.Backup); err != nil {
		// Without the old executable this one is the only agent there is:
		// keep it, and confirm it should the hub welcome it after all.
		u.log.Error("cannot put the previous executable back; keeping this version", "err", err)
		return nil
	}
	u.awaiting = false
	_ = u.setLocked(agentproto.UpgradeRolledBack, reason)
	return &RestartError{Exe: u.rec.Exe, Reason: "rollback to " + u.rec.FromVersion, stateDir: u.dir}
}

// attach makes s the session reports go to. It runs after each welcome:
// the first one confirms a new executable; every one re-sends the latest
// report.
func (u *upgrader) attach(s *session) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.sess = s
	if u.awaiting {
		u.confirmLocked()
	}
	u.sendLocked()
}

// detach forgets s once its session has ended.
func (u *upgrader) detach(s *session) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.sess == s {
		u.sess = nil
	}
}

// confirmLocked keeps this new executable: the backup goes, the upgrade
// is done.
func (u *upgrader) confirmLocked() {
	u.awaiting = false
	close(u.confirmed)
	if err := os.Remove(u.rec.Backup); err != nil && !errors.Is(err, fs.ErrNotExist) {
		// On Windows the old process may still be exiting; the next
		// start removes it.
		u.log.Warn("cannot remove the previous executable yet", "err", err)
	}
	u.log.Info("upgrade confirmed by the hub's welcome", "version", u.version)
	u.busy.Store(false) // before the report, as in fail
	_ = u.setLocked(agentproto.UpgradeDone, "")
}

// setLocked moves the upgrade in u.rec to state, saves the record and
// reports it. The error is the record's: the report goes out anyway.
func (u *upgrader) setLocked(state agentproto.UpgradeState, reason string) error {
	u.rec.State, u.rec.Reason, u.rec.Time = state, clip.String(reason, maxReason), time.Now().UTC()
	err := upgrade.SaveRecord(u.dir, *u.rec)
	if err != nil {
		u.log.Warn("cannot write the upgrade record", "err", err)
	}
	u.publishLocked(u.rec.Report())
	return err
}

// publishLocked makes r the latest report and sends it if connected.
func (u *upgrader) publishLocked(r agentproto.UpgradeReport) {
	u.latest, u.delivered = &r, false
	u.sendLocked()
}

// sendLocked writes the latest report to the welcomed session. Once a
// final report is delivered, the record has served its purpose and goes,
// and the report is not sent again (a stale "failed" must not reach a
// later upgrade to the same version).
func (u *upgrader) sendLocked() {
	if u.sess == nil || u.latest == nil || u.delivered && u.latest.State.Terminal() {
		return
	}
	if err := u.sess.send(agentproto.TypeUpgrade, "", *u.latest); err != nil {
		u.log.Debug("upgrade report not sent; it goes after the next welcome", "state", u.latest.State, "err", err)
		return
	}
	u.delivered = true
	if u.latest.State.Terminal() && u.rec != nil && u.rec.Version == u.latest.Version {
		if err := upgrade.ClearRecord(u.dir); err != nil {
			u.log.Warn("cannot remove the upgrade record", "err", err)
		}
		u.rec = nil
	}
}

// drain refuses new commands and waits, at most limit, for those in
// flight to finish.
func (a *Agent) drain(limit time.Duration) {
	a.drainMu.Lock()
	a.draining = true
	a.drainMu.Unlock()
	done := make(chan struct{})
	go func() {
		a.cmds.Wait() // no Add follows: draining is set
		close(done)
	}()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		a.log.Warn("commands still running after the restart grace period; cancelling them", "grace", limit.String())
	}
}

// goCommand runs f as a command unless the agent is draining for a
// restart; the check and the Add are one step, so drain's Wait never
// races an Add.
func (a *Agent) goCommand(f func()) bool {
	a.drainMu.Lock()
	defer a.drainMu.Unlock()
	if a.draining {
		return false
	}
	a.cmds.Go(f)
	return true
}
