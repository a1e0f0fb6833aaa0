package upgrades_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/accounts"
	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/hosts"
	"hostgate/internal/store"
	"hostgate/internal/upgrades"
	"hostgate/internal/versions"
)

type fakeHosts struct{ st store.Store }

func (f fakeHosts) AdminGet(ctx context.Context, id string) (hosts.Host, error) {
	h, _, err := f.st.Hosts.HostByID(ctx, id)
	if errors.Is(err, hosts.ErrNotFound) {
		return hosts.Host{}, apperr.NotFound("host") // as hosts.Service answers
	}
	return h, err
}

type fakeVersions map[string]versions.Version

func (f fakeVersions) Usable(_ context.Context, v string) (versions.Version, error) {
	if ver, ok := f[v]; ok {
		return ver, nil
	}
	return versions.Version{}, apperr.New(versions.CodeVersionNotFound, "no version "+v)
}

// fakeDispatcher is one connected agent that answers agent.upgrade with
// resp, or err.
type fakeDispatcher struct {
	online bool
	resp   agentproto.Response
	err    error
	sent   []agentproto.Upgrade
}

func (f *fakeDispatcher) Online(context.Context, string) (bool, error) { return f.online, nil }

func (f *fakeDispatcher) Send(_ context.Context, _, op string, args json.RawMessage, _ time.Duration) (agentproto.Response, error) {
	if op != agentproto.OpUpgrade {
		return agentproto.Response{}, apperr.New("unexpected", op)
	}
	var u agentproto.Upgrade
	_ = json.Unmarshal(args, &u)
	f.sent = append(f.sent, u)
	return f.resp, f.err
}

type fixture struct {
	svc    *upgrades.Service
	st     store.Store
	disp   *fakeDispatcher
	hostID string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, err := store.Open(t.Context(), "", t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Now().UTC().Truncate(time.Microsecond)
	u := accounts.User{ID: uuid.NewString(), Email: "ann@example.com", DisplayName: "ann", Status: accounts.StatusActive, CreatedAt: now}
	sess := accounts.Session{ID: uuid.NewString(), UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	if err := st.Accounts.CreateUser(t.Context(), u, "hash", sess, []byte("refresh")); err != nil {
		t.Fatal(err)
	}
	h := hosts.Host{ID: uuid.NewString(), UserID: u.ID, Name: "web", BID: 7, ListenPort: hosts.DefaultListenPort,
		Status: hosts.StatusPending, CreatedAt: now}
	if err := st.Hosts.CreateHost(t.Context(), h, hosts.Secrets{SecretSealed: []byte("s")}, nil); err != nil {
		t.Fatal(err)
	}
	vs := fakeVersions{"2.0.0": {Version: "2.0.0", ExeURL: "https://dl.example.com/a", ExeSHA256: strings.Repeat("ab", 32),
		ExeSizeBytes: 10, MinSupportedProtocol: 1}}
	d := &fakeDispatcher{online: true, resp: agentproto.Response{OK: true, Result: json.RawMessage(`{"state":"downloading"}`)}}
	return &fixture{svc: upgrades.NewService(st.Upgrades, fakeHosts{st}, vs, d, slog.New(slog.DiscardHandler)), st: st, disp: d, hostID: h.ID}
}

var admin1 = audit.Actor{AdminID: "adm-1", Role: "operator"}

func (f *fixture) state(t *testing.T) upgrades.Upgrade {
	t.Helper()
	u, err := f.svc.Get(t.Context(), f.hostID)
	if err != nil || u == nil {
		t.Fatalf("Get: %v %v", u, err)
	}
	return *u
}

func TestPushSendsTheVersionAndFollowsReports(t *testing.T) {
	f := newFixture(t)
	res, err := f.svc.Push(t.Context(), admin1, f.hostID, "2.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Agent.Upgrade == nil || res.Agent.Upgrade.State != agentproto.UpgradeDownloading {
		t.Fatalf("result %+v", res)
	}
	if len(f.disp.sent) != 1 || f.disp.sent[0] != (agentproto.Upgrade{Version: "2.0.0", ExeURL: "https://dl.example.com/a",
		ExeSHA256: strings.Repeat("ab", 32), ExeSize: 10}) {
		t.Fatalf("sent %+v", f.disp.sent)
	}
	ctx := t.Context()
	f.svc.Report(ctx, f.hostID, agentproto.UpgradeReport{Version: "2.0.0", State: "bogus"})
	f.svc.Report(ctx, f.hostID, agentproto.UpgradeReport{Version: "1.0.0", State: agentproto.UpgradeDone})
	f.svc.Report(ctx, f.hostID, agentproto.UpgradeReport{Version: "2.0.0", State: agentproto.UpgradeRestarting})
	f.svc.Report(ctx, f.hostID, agentproto.UpgradeReport{Version: "2.0.0", State: agentproto.UpgradeVerifying})
	if s := f.state(t).State; s != agentproto.UpgradeRestarting {
		t.Fatalf("state %s after reports, want restarting (bogus, foreign and late reports ignored)", s)
	}
	// Another version reconnecting does not finish it; the target does.
	f.svc.ObserveVersion(ctx, f.hostID, "1.0.0")
	if s := f.state(t).State; s != agentproto.UpgradeRestarting {
		t.Fatalf("state %s after the old version reconnected", s)
	}
	f.svc.ObserveVersion(ctx, f.hostID, "2.0.0")
	if u := f.state(t); u.State != agentproto.UpgradeDone || !strings.Contains(u.Reason, "reconnected") {
		t.Fatalf("after the new version reconnected: %+v", u)
	}
}

func TestPushRefusedByTheAgentIsFailed(t *testing.T) {
	f := newFixture(t)
	f.disp.resp = agentproto.Response{Error: &agentproto.Error{Code: agentproto.CodeFailed, Message: "an upgrade to 1.9.0 is running"}}
	res, err := f.svc.Push(t.Context(), admin1, f.hostID, "2.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || res.Agent.Upgrade.State != agentproto.UpgradeFailed || !strings.Contains(res.Agent.Upgrade.Reason, "1.9.0 is running") {
		t.Fatalf("result %+v / %+v", res, res.Agent.Upgrade)
	}

	f.disp.resp, f.disp.err = agentproto.Response{}, apperr.New("agent_timeout", "the agent did not answer in time")
	res, err = f.svc.Push(t.Context(), admin1, f.hostID, "2.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || !strings.Contains(res.Agent.Upgrade.Reason, "did not answer") {
		t.Fatalf("unreachable agent: %+v", res.Agent.Upgrade)
	}
}

func TestSweepFailsSilentUpgrades(t *testing.T) {
	f := newFixture(t)
	if _, err := f.svc.Push(t.Context(), admin1, f.hostID, "2.0.0"); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s := f.state(t).State; s != agentproto.UpgradeDownloading {
		t.Fatalf("a fresh upgrade was swept: %s", s)
	}
	f.svc.Timeout = -time.Second // everything is overdue
	if err := f.svc.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if u := f.state(t); u.State != agentproto.UpgradeFailed || !strings.Contains(u.Reason, "no word from the agent") {
		t.Fatalf("after the sweep: %+v", u)
	}
}

func TestPushRefusals(t *testing.T) {
	f := newFixture(t)
	f.disp.online = false
	if _, err := f.svc.Push(t.Context(), admin1, f.hostID, "2.0.0"); apperr.Code(err) != upgrades.CodeHostOffline {
		t.Fatalf("offline: %v", err)
	}
	f.disp.online = true
	if _, err := f.svc.Push(t.Context(), admin1, f.hostID, "3.0.0"); apperr.Code(err) != versions.CodeVersionNotFound {
		t.Fatalf("unknown version: %v", err)
	}
	if _, err := f.svc.Push(t.Context(), admin1, uuid.NewString(), "2.0.0"); apperr.Code(err) != apperr.CodeNotFound {
		t.Fatalf("unknown host: %v", err)
	}
	if _, err := f.svc.Push(t.Context(), admin1, f.hostID, "2.0.0"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Push(t.Context(), admin1, f.hostID, "2.0.0"); apperr.Code(err) != upgrades.CodeInProgress {
		t.Fatalf("second push: %v", err)
	}
	if len(f.disp.sent) != 1 {
		t.Fatalf("%d commands sent, want 1", len(f.disp.sent))
	}
}
