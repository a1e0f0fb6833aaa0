// Package upgrades pushes agent versions to hosts and keeps each host's
// upgrade state, so that no upgrade fails silently.
//
// An admin push records the upgrade as requested (with its audit row, in
// one transaction) and sends the agent an agent.upgrade command. The agent
// then reports downloading, verifying and restarting, and finally done,
// failed or rolled_back (agentproto.UpgradeReport). Reports only ever move
// an upgrade forward, so a late or repeated one changes nothing; every move
// is also a host event. The hub marks an upgrade done itself when the agent
// reconnects with the target version, and failed when an upgrade has not
// moved for Timeout.
package upgrades

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/clip"
	"hostgate/internal/hosts"
	"hostgate/internal/versions"
)

// Error codes owned by this package.
const (
	CodeInProgress  = "upgrade_in_progress"
	CodeUnsupported = "version_unsupported"
	CodeHostOffline = "host_offline"
)

// DefaultTimeout is how long an upgrade may go without a report before the
// hub declares it failed. It covers a slow download and the new agent's
// confirm window (3 minutes by default) with room to spare.
const DefaultTimeout = 15 * time.Minute

// acceptTimeout bounds the wait for the agent's answer to agent.upgrade;
// the agent answers after checking the arguments, before downloading.
const acceptTimeout = 30 * time.Second

// Upgrade is a host's latest upgrade.
type Upgrade struct {
	HostID      string                  `json:"host_id"`
	Version     string                  `json:"version" doc:"Target version"`
	FromVersion string                  `json:"from_version,omitempty" doc:"Version the agent ran when the upgrade was pushed"`
	State       agentproto.UpgradeState `json:"state" enum:"requested,downloading,verifying,restarting,done,failed,rolled_back"`
	Reason      string                  `json:"reason,omitempty" doc:"Why the upgrade failed or was rolled back"`
	RequestedBy string                  `json:"requested_by" doc:"Admin who pushed it"`
	RequestedAt time.Time               `json:"requested_at"`
	UpdatedAt   time.Time               `json:"updated_at" doc:"Time of the last state change"`
}

// Store keeps upgrades. Each method is one transaction.
type Store interface {
	// Tx runs fn in one unit of work: everything fn does through its Tx
	// commits when fn returns nil and nothing does when it returns an
	// error, which Tx returns.
	Tx(ctx context.Context, fn func(Tx) error) error
	// GetUpgrade returns the host's latest upgrade; ErrNotFound.
	GetUpgrade(ctx context.Context, hostID string) (Upgrade, error)
	// StaleUpgrades returns up to limit unfinished upgrades last updated
	// before the given time.
	StaleUpgrades(ctx context.Context, before time.Time, limit int) ([]Upgrade, error)
}

// Tx is the plain storage operations of a change to upgrades, inside one
// unit of work (Store.Tx).
type Tx interface {
	audit.Appender
	// LockHostUpgrade locks the undeleted host until the unit of work ends
	// and reads its upgrade; found is false when it has none.
	// hosts.ErrNotFound for an unknown or deleted host.
	LockHostUpgrade(ctx context.Context, hostID string) (u Upgrade, found bool, err error)
	// LockUpgrade reads the host's upgrade to version and locks it until
	// the unit of work ends; ErrNotFound when the host has none to that
	// version.
	LockUpgrade(ctx context.Context, hostID, version string) (Upgrade, error)
	// SetUpgradeState writes the state of the host's upgrade, with its
	// reason and time, and returns the upgrade.
	SetUpgradeState(ctx context.Context, hostID string, to agentproto.UpgradeState, reason string, at time.Time) (Upgrade, error)
	// SaveUpgrade makes u its host's upgrade, replacing the one before.
	SaveUpgrade(ctx context.Context, u Upgrade) error
	// AppendHostEvent appends e to the host's events, keeping the newest
	// hosts.KeepEvents; hosts.ErrNotFound for a deleted host.
	AppendHostEvent(ctx context.Context, hostID string, e hosts.Event) error
}

// StartUpgrade makes u the host's upgrade, appends ev to the host's events
// and writes rec (stamped when u was requested), in one unit of work of
// st. An upgrade replaces only a finished one or one abandoned (not
// updated since busySince): ErrInProgress otherwise; hosts.ErrNotFound for
// an unknown or deleted host. Of concurrent starts on one host, one wins.
func StartUpgrade(ctx context.Context, st Store, u Upgrade, busySince time.Time, ev hosts.Event, rec audit.Entry) error {
	return st.Tx(ctx, func(tx Tx) error {
		cur, found, err := tx.LockHostUpgrade(ctx, u.HostID)
		switch {
		case err != nil:
			return err
		case found && !cur.State.Terminal() && !cur.UpdatedAt.Before(busySince):
			return ErrInProgress
		}
		if err := tx.SaveUpgrade(ctx, u); err != nil {
			return err
		}
		if err := tx.AppendHostEvent(ctx, u.HostID, ev); err != nil {
			return err
		}
		return tx.AppendAudit(ctx, rec.At(u.RequestedAt))
	})
}

// AdvanceUpgrade moves the host's upgrade to version into state to, with
// reason, when MayMove allows it, and appends ev (unless the host was
// deleted: its upgrade row stays, its events end), in one unit of work of
// st. It returns the upgrade as it is after the call and whether it
// moved; ErrNotFound when the host has no upgrade to that version.
func AdvanceUpgrade(ctx context.Context, st Store, hostID, version string, to agentproto.UpgradeState, reason string,
	at time.Time, ev hosts.Event) (Upgrade, bool, error) {
	var u Upgrade
	moved := false
	err := st.Tx(ctx, func(tx Tx) error {
		var err error
		if u, err = tx.LockUpgrade(ctx, hostID, version); err != nil || !MayMove(u.State, to) {
			return err
		}
		if u, err = tx.SetUpgradeState(ctx, hostID, to, reason, at); err != nil {
			return err
		}
		moved = true
		if err := tx.AppendHostEvent(ctx, hostID, ev); err != nil && !errors.Is(err, hosts.ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		return Upgrade{}, false, err
	}
	return u, moved, nil
}

// MayMove reports whether an upgrade in state from may move to state to:
// only to a state of higher rank, so a late or repeated report never moves
// it backwards, and an ended upgrade (or one in an unknown state) stays.
func MayMove(from, to agentproto.UpgradeState) bool {
	return !from.Terminal() && from.Rank() >= 0 && from.Rank() < to.Rank()
}

// Storage errors.
var (
	ErrNotFound   = errors.New("upgrades: no such upgrade")
	ErrInProgress = errors.New("upgrades: an upgrade is in progress")
)

// Hosts is what the service needs of package hosts.
type Hosts interface {
	AdminGet(ctx context.Context, id string) (hosts.Host, error)
}

// Versions is what the service needs of package versions.
type Versions interface {
	Usable(ctx context.Context, version string) (versions.Version, error)
}

// Dispatcher reaches agents on any hub instance.
type Dispatcher interface {
	Online(ctx context.Context, hostID string) (bool, error)
	Send(ctx context.Context, hostID, op string, args json.RawMessage, timeout time.Duration) (agentproto.Response, error)
}

// Service pushes upgrades and follows them.
type Service struct {
	store    Store
	hosts    Hosts
	versions Versions
	disp     Dispatcher
	log      *slog.Logger
	now      func() time.Time
	// Timeout is how long an unfinished upgrade may go without moving.
	Timeout time.Duration
}

// NewService wires the upgrades service.
func NewService(st Store, h Hosts, v Versions, d Dispatcher, log *slog.Logger) *Service {
	return &Service{store: st, hosts: h, versions: v, disp: d, log: log, now: time.Now, Timeout: DefaultTimeout}
}

// Agent is the agent part of a push result.
type Agent struct {
	HostID           string   `json:"host_id"`
	WSConnected      bool     `json:"ws_connected" doc:"Whether the agent is connected now"`
	InstalledVersion string   `json:"installed_version,omitempty" doc:"Version the agent last reported"`
	Upgrade          *Upgrade `json:"upgrade,omitempty" doc:"The host's latest upgrade"`
}

// Result is the answer to a push: OK is false when the agent could not
// take the upgrade (the upgrade is then failed, with the reason).
type Result struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
	Agent   Agent  `json:"agent"`
}

// Push sends version to the host's agent, audited as host.push_upgrade.
// Refusals before anything is recorded: version_not_found, version_yanked,
// not_found, version_unsupported, host_offline, upgrade_in_progress.
func (s *Service) Push(ctx context.Context, actor audit.Actor, hostID, version string) (Result, error) {
	v, err := s.versions.Usable(ctx, version)
	if err != nil {
		return Result{}, err
	}
	h, err := s.hosts.AdminGet(ctx, hostID)
	if err != nil {
		return Result{}, err
	}
	if v.MinSupportedProtocol > agentproto.Version {
		return Result{}, apperr.New(CodeUnsupported, fmt.Sprintf(
			"version %s needs agent protocol %d or later; this hub speaks %d", v.Version, v.MinSupportedProtocol, agentproto.Version))
	}
	online, err := s.disp.Online(ctx, h.ID)
	if err != nil {
		return Result{}, err
	}
	if !online {
		return Result{}, apperr.New(CodeHostOffline, "the host's agent is not connected; it can be upgraded once it is")
	}

	now := s.now().UTC().Truncate(time.Microsecond)
	u := Upgrade{HostID: h.ID, Version: v.Version, FromVersion: h.InstalledVersion, State: agentproto.UpgradeRequested,
		RequestedBy: actor.AdminID, RequestedAt: now, UpdatedAt: now}
	rec := actor.Entry(audit.ActionHostPushUpgrade, "host", h.ID).
		WithDetail(map[string]string{"version": v.Version, "from_version": h.InstalledVersion})
	err = StartUpgrade(ctx, s.store, u, now.Add(-s.Timeout), event(now, u.State, v.Version, "pushed by admin "+actor.AdminID), rec)
	switch {
	case errors.Is(err, ErrInProgress):
		return Result{}, apperr.New(CodeInProgress, "the host has an upgrade in progress; wait for it to end")
	case errors.Is(err, hosts.ErrNotFound):
		return Result{}, apperr.NotFound("host")
	case err != nil:
		return Result{}, err
	}

	ok := s.send(ctx, h.ID, v)
	return s.result(ctx, h.ID, v.Version, ok)
}

// send gives the agent the upgrade command and records a refusal or a
// failure to reach the agent as a failed upgrade; it reports whether the
// agent took the upgrade.
func (s *Service) send(ctx context.Context, hostID string, v versions.Version) bool {
	args, err := json.Marshal(agentproto.Upgrade{Version: v.Version, ExeURL: v.ExeURL, ExeSHA256: v.ExeSHA256, ExeSize: v.ExeSizeBytes})
	if err != nil {
		return s.fail(ctx, hostID, v.Version, "encode command: "+err.Error())
	}
	resp, err := s.disp.Send(ctx, hostID, agentproto.OpUpgrade, args, acceptTimeout)
	switch {
	case err != nil:
		return s.fail(ctx, hostID, v.Version, "the agent did not take the upgrade: "+err.Error())
	case !resp.OK || resp.Error != nil:
		msg := "the agent refused the upgrade"
		if resp.Error != nil {
			msg += ": " + resp.Error.Code + ": " + resp.Error.Message
		}
		return s.fail(ctx, hostID, v.Version, msg)
	}
	var acc agentproto.UpgradeAccepted
	if json.Unmarshal(resp.Result, &acc) == nil && acc.State.Rank() > 0 {
		s.advance(ctx, hostID, agentproto.UpgradeReport{Version: v.Version, State: acc.State})
	}
	return true
}

func (s *Service) fail(ctx context.Context, hostID, version, reason string) bool {
	s.advance(ctx, hostID, agentproto.UpgradeReport{Version: version, State: agentproto.UpgradeFailed, Reason: reason})
	return false
}

func (s *Service) result(ctx context.Context, hostID, version string, ok bool) (Result, error) {
	h, err := s.hosts.AdminGet(ctx, hostID)
	if err != nil {
		return Result{}, err
	}
	online, err := s.disp.Online(ctx, hostID)
	if err != nil {
		return Result{}, err
	}
	r := Result{OK: ok, Version: version, Agent: Agent{HostID: h.ID, WSConnected: online, InstalledVersion: h.InstalledVersion}}
	if u, err := s.store.GetUpgrade(ctx, hostID); err == nil {
		r.Agent.Upgrade = &u
	} else if !errors.Is(err, ErrNotFound) {
		return Result{}, err
	}
	return r, nil
}

// Get returns the host's latest upgrade, nil when there has been none.
func (s *Service) Get(ctx context.Context, hostID string) (*Upgrade, error) {
	u, err := s.store.GetUpgrade(ctx, hostID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// Report applies an agent's progress report. Reports for another version
// than the host's current upgrade, and reports that would move it
// backwards, change nothing.
func (s *Service) Report(ctx context.Context, hostID string, r agentproto.UpgradeReport) {
	if r.State.Rank() < 1 {
		s.log.WarnContext(ctx, "ignoring an upgrade report with an unknown state", "host_id", hostID, "state", clip.String(string(r.State), 32))
		return
	}
	s.advance(ctx, hostID, r)
}

// ObserveVersion is told the version an agent reports at every handshake:
// an unfinished upgrade to that version is done.
func (s *Service) ObserveVersion(ctx context.Context, hostID, version string) {
	u, err := s.store.GetUpgrade(ctx, hostID)
	if err != nil || u.State.Terminal() || u.Version != version {
		if err != nil && !errors.Is(err, ErrNotFound) {
			s.log.WarnContext(ctx, "read upgrade failed", "host_id", hostID, "err", err)
		}
		return
	}
	s.advance(ctx, hostID, agentproto.UpgradeReport{Version: version, State: agentproto.UpgradeDone,
		Reason: "the agent reconnected running " + version})
}

// Sweep fails unfinished upgrades that have not moved for Timeout; the hub
// runs it periodically.
func (s *Service) Sweep(ctx context.Context) error {
	stale, err := s.store.StaleUpgrades(ctx, s.now().Add(-s.Timeout), 500)
	if err != nil {
		return err
	}
	for _, u := range stale {
		s.advance(ctx, u.HostID, agentproto.UpgradeReport{Version: u.Version, State: agentproto.UpgradeFailed,
			Reason: fmt.Sprintf("no word from the agent for %s while %s", s.Timeout, u.State)})
	}
	return nil
}

func (s *Service) advance(ctx context.Context, hostID string, r agentproto.UpgradeReport) {
	reason := clip.String(r.Reason, 500)
	at := s.now().UTC().Truncate(time.Microsecond)
	u, moved, err := AdvanceUpgrade(ctx, s.store, hostID, clip.String(r.Version, 64), r.State, reason, at, event(at, r.State, r.Version, reason))
	switch {
	case errors.Is(err, ErrNotFound):
		s.log.InfoContext(ctx, "ignoring a report for an upgrade the hub did not push", "host_id", hostID, "version", clip.String(r.Version, 64))
	case err != nil:
		s.log.ErrorContext(ctx, "record upgrade state failed", "host_id", hostID, "state", r.State, "err", err)
	case moved:
		s.log.InfoContext(ctx, "upgrade", "host_id", hostID, "version", u.Version, "state", u.State, "reason", u.Reason)
	}
}

// event is the host event that records a move into state.
func event(at time.Time, state agentproto.UpgradeState, version, reason string) hosts.Event {
	msg := "version " + clip.String(version, 64)
	if reason != "" {
		msg += ": " + reason
	}
	return hosts.Event{At: at, Kind: "upgrade." + string(state), Message: clip.String(msg, 1000)}
}
