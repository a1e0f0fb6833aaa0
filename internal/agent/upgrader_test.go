package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lxzan/gws"

	"hostgate/internal/agent/upgrade"
	"hostgate/internal/agentproto"
	"hostgate/internal/battery"
)

// exeContent is a stand-in executable of version: what "version" would
// print, which fakeProbe reads instead of running the file.
func exeContent(version string) []byte {
	return []byte("hostgate-agent " + version + " (stand-in build)\n")
}

// fakeProbe checks a stand-in executable the way upgrade.Probe checks a
// real one.
func fakeProbe(_ context.Context, exe, version string) error {
	b, err := os.ReadFile(exe)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(b, []byte("hostgate-agent "+version+" ")) {
		return fmt.Errorf("the new executable reports %q, want %s", strings.TrimSpace(string(b)), version)
	}
	return nil
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// upgradeConfig is h's config for an agent of version whose executable is
// a stand-in file in its own directory.
func upgradeConfig(t *testing.T, h *fakeHub, version string) Config {
	cfg := h.config(t)
	cfg.AgentVersion = version
	cfg.Executable = filepath.Join(t.TempDir(), "hostgate-agent")
	if runtime.GOOS == "windows" {
		cfg.Executable += ".exe"
	}
	if err := os.WriteFile(cfg.Executable, exeContent(version), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg.probe = fakeProbe
	return cfg
}

// exeServer serves files by path; a path in gates answers only once its
// channel is closed.
func exeServer(t *testing.T, files map[string][]byte, gates map[string]chan struct{}) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g, ok := gates[r.URL.Path]; ok {
			select {
			case <-g:
			case <-r.Context().Done():
				return
			}
		}
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func upgradeArgs(srv *httptest.Server, path, version string, body []byte) agentproto.Upgrade {
	return agentproto.Upgrade{Version: version, ExeURL: srv.URL + path, ExeSHA256: sha(body), ExeSize: int64(len(body))}
}

// hubInbox sorts what the agent sends on one connection into command
// answers and upgrade reports.
type hubInbox struct {
	c       *hubConn
	resps   map[string]agentproto.Response
	reports []agentproto.UpgradeReport
}

func inbox(c *hubConn) *hubInbox { return &hubInbox{c: c, resps: map[string]agentproto.Response{}} }

// until reads messages until ok holds.
func (in *hubInbox) until(t *testing.T, what string, ok func() bool) {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for !ok() {
		select {
		case e := <-in.c.msgs:
			switch e.Type {
			case agentproto.TypeCmdResp:
				var r agentproto.Response
				if err := agentproto.DecodeBody(e, &r); err != nil {
					t.Fatalf("cmd_resp: %v", err)
				}
				in.resps[e.ID] = r
			case agentproto.TypeUpgrade:
				var r agentproto.UpgradeReport
				if err := agentproto.DecodeBody(e, &r); err != nil {
					t.Fatalf("upgrade: %v", err)
				}
				in.reports = append(in.reports, r)
			}
		case <-timeout:
			t.Fatalf("%s: not within 15s (reports so far %+v)", what, in.reports)
		}
	}
}

func (in *hubInbox) resp(t *testing.T, id string) agentproto.Response {
	t.Helper()
	in.until(t, "cmd_resp "+id, func() bool { _, ok := in.resps[id]; return ok })
	return in.resps[id]
}

// report waits for a report of state and returns it.
func (in *hubInbox) report(t *testing.T, state agentproto.UpgradeState) agentproto.UpgradeReport {
	t.Helper()
	var got agentproto.UpgradeReport
	in.until(t, "upgrade report "+string(state), func() bool {
		for _, r := range in.reports {
			if r.State == state {
				got = r
				return true
			}
		}
		return false
	})
	return got
}

func (in *hubInbox) states() []agentproto.UpgradeState {
	var s []agentproto.UpgradeState
	for _, r := range in.reports {
		s = append(s, r.State)
	}
	return s
}

// upgrade sends agent.upgrade and returns its answer.
func (in *hubInbox) upgrade(t *testing.T, args any) agentproto.Response {
	t.Helper()
	id := uuid.NewString()
	in.c.cmd(id, agentproto.OpUpgrade, 5*time.Second, args)
	return in.resp(t, id)
}

func acceptedState(t *testing.T, r agentproto.Response) agentproto.UpgradeState {
	t.Helper()
	var acc agentproto.UpgradeAccepted
	if !r.OK || json.Unmarshal(r.Result, &acc) != nil {
		t.Fatalf("agent.upgrade answered %+v (error %+v)", r, r.Error)
	}
	return acc.State
}

// waitRestart waits for Run to return and requires a *RestartError.
func (ta *testAgent) waitRestart(t *testing.T) *RestartError {
	t.Helper()
	select {
	case err := <-ta.done:
		close(ta.done) // stop() at cleanup then expects nothing
		var re *RestartError
		if !errors.As(err, &re) {
			t.Fatalf("Run returned %v, want a *RestartError\n%s", err, ta.logs)
		}
		return re
	case <-time.After(15 * time.Second):
		t.Fatalf("Run did not return for a restart\n%s", ta.logs)
	}
	return nil
}

func loadRecord(t *testing.T, dir string) *upgrade.Record {
	t.Helper()
	r, err := upgrade.LoadRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func assertFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s holds %q, want %q", filepath.Base(path), got, want)
	}
}

// assertOnlyExe fails unless the executable's directory holds only it.
func assertOnlyExe(t *testing.T, exe string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(exe))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{filepath.Base(exe)}) {
		t.Errorf("beside the executable: %v, want only it", names)
	}
}

func TestUpgradeSwapsAndRestarts(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := upgradeConfig(t, h, "1.0.0")
	newExe := exeContent("2.0.0")
	srv := exeServer(t, map[string][]byte{"/agent": newExe}, nil)
	a := start(t, cfg)
	a.waitConnected(t, 1)
	c := h.conn(t, 1)
	in := inbox(c)

	if st := acceptedState(t, in.upgrade(t, upgradeArgs(srv, "/agent", "2.0.0", newExe))); st != agentproto.UpgradeDownloading {
		t.Errorf("accepted state %q, want downloading", st)
	}
	in.report(t, agentproto.UpgradeRestarting)
	want := []agentproto.UpgradeState{agentproto.UpgradeDownloading, agentproto.UpgradeVerifying, agentproto.UpgradeRestarting}
	if got := in.states(); !slices.Equal(got, want) {
		t.Errorf("reports %v, want %v", got, want)
	}
	for _, r := range in.reports {
		if r.Version != "2.0.0" || r.Reason != "" {
			t.Errorf("report %+v", r)
		}
	}

	re := a.waitRestart(t)
	if re.Exe != cfg.Executable || re.Reason != "upgrade to 2.0.0" {
		t.Errorf("restart %+v, want into %s", re, cfg.Executable)
	}
	assertFile(t, cfg.Executable, newExe)
	assertFile(t, upgrade.BackupPath(cfg.Executable), exeContent("1.0.0"))
	rec := loadRecord(t, cfg.StateDir)
	if rec == nil || rec.State != agentproto.UpgradeRestarting || rec.Version != "2.0.0" || rec.FromVersion != "1.0.0" ||
		rec.Exe != cfg.Executable || rec.Backup != upgrade.BackupPath(cfg.Executable) {
		t.Errorf("record %+v", rec)
	}
	<-c.closed
	var ce *gws.CloseError
	if !errors.As(c.closeErr, &ce) || ce.Code != 1000 {
		t.Errorf("the agent closed the socket with %v, want a normal close (1000)", c.closeErr)
	}
}

func TestUpgradeRefusedFileLeavesExecutableAlone(t *testing.T) {
	t.Parallel()
	newExe := exeContent("2.0.0")
	other := exeContent("3.0.0")
	tests := []struct {
		name string
		args func(srv *httptest.Server) agentproto.Upgrade
		want string
	}{
		{"wrong sha", func(srv *httptest.Server) agentproto.Upgrade {
			u := upgradeArgs(srv, "/agent", "2.0.0", newExe)
			u.ExeSHA256 = sha(other)
			return u
		}, "sha256 mismatch: got " + sha(newExe) + ", want " + sha(other)},
		{"wrong size", func(srv *httptest.Server) agentproto.Upgrade {
			u := upgradeArgs(srv, "/agent", "2.0.0", newExe)
			u.ExeSize++
			return u
		}, "size mismatch"},
		{"missing file", func(srv *httptest.Server) agentproto.Upgrade {
			return upgradeArgs(srv, "/missing", "2.0.0", newExe)
		}, "download: HTTP 404"},
		{"another version inside", func(srv *httptest.Server) agentproto.Upgrade {
			return upgradeArgs(srv, "/other", "2.0.0", other)
		}, "the new executable reports"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newFakeHub(t)
			cfg := upgradeConfig(t, h, "1.0.0")
			srv := exeServer(t, map[string][]byte{"/agent": newExe, "/other": other}, nil)
			a := start(t, cfg)
			a.waitConnected(t, 1)
			in := inbox(h.conn(t, 1))

			acceptedState(t, in.upgrade(t, tt.args(srv)))
			r := in.report(t, agentproto.UpgradeFailed)
			if r.Version != "2.0.0" || !strings.Contains(r.Reason, tt.want) {
				t.Errorf("failed report %+v, want a reason containing %q", r, tt.want)
			}
			if slices.Contains(in.states(), agentproto.UpgradeRestarting) {
				t.Errorf("reports %v: restarting after a refusal", in.states())
			}
			assertFile(t, cfg.Executable, exeContent("1.0.0"))
			assertOnlyExe(t, cfg.Executable)
			waitFor(t, 5*time.Second, "record cleared once reported", func() bool { return loadRecord(t, cfg.StateDir) == nil })
			battery.Report(t, "T52", "agent upgrade, %s: refused before any swap, reported %s (%.60s), executable unchanged", tt.name, agentproto.UpgradeFailed, r.Reason)

			// The agent is free for the next upgrade.
			if st := acceptedState(t, in.upgrade(t, upgradeArgs(srv, "/agent", "2.0.0", newExe))); st != agentproto.UpgradeDownloading {
				t.Errorf("next upgrade: %q", st)
			}
			a.waitRestart(t)
		})
	}
}

func TestUpgradeToTheRunningVersionIsDone(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := upgradeConfig(t, h, "1.0.0")
	a := start(t, cfg)
	a.waitConnected(t, 1)
	in := inbox(h.conn(t, 1))
	args := agentproto.Upgrade{Version: "1.0.0", ExeURL: "http://127.0.0.1:1/never-fetched", ExeSHA256: sha(nil), ExeSize: 1}
	if st := acceptedState(t, in.upgrade(t, args)); st != agentproto.UpgradeDone {
		t.Errorf("accepted state %q, want done", st)
	}
	if r := in.report(t, agentproto.UpgradeDone); r.Version != "1.0.0" {
		t.Errorf("report %+v", r)
	}
	assertOnlyExe(t, cfg.Executable)
	if rec := loadRecord(t, cfg.StateDir); rec != nil {
		t.Errorf("record %+v left", rec)
	}
}

func TestUpgradeInvalidArgs(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := upgradeConfig(t, h, "1.0.0")
	a := start(t, cfg)
	a.waitConnected(t, 1)
	in := inbox(h.conn(t, 1))
	good := agentproto.Upgrade{Version: "2.0.0", ExeURL: "https://dl.example/a", ExeSHA256: sha(nil), ExeSize: 10}
	bad := func(f func(*agentproto.Upgrade)) agentproto.Upgrade {
		u := good
		f(&u)
		return u
	}
	for name, args := range map[string]any{
		"no args":     nil,
		"not object":  "2.0.0",
		"no version":  bad(func(u *agentproto.Upgrade) { u.Version = "" }),
		"file URL":    bad(func(u *agentproto.Upgrade) { u.ExeURL = "file:///tmp/agent" }),
		"short sha":   bad(func(u *agentproto.Upgrade) { u.ExeSHA256 = "abc" }),
		"zero size":   bad(func(u *agentproto.Upgrade) { u.ExeSize = 0 }),
		"over 512MiB": bad(func(u *agentproto.Upgrade) { u.ExeSize = 513 << 20 }),
	} {
		if r := in.upgrade(t, args); r.OK || r.Error == nil || r.Error.Code != agentproto.CodeBadArgs {
			t.Errorf("%s: answer %+v (error %+v), want %s", name, r, r.Error, agentproto.CodeBadArgs)
		}
	}
	if len(in.reports) > 0 {
		t.Errorf("reports %+v for refused commands", in.reports)
	}
	assertOnlyExe(t, cfg.Executable)
}

func TestUpgradeWhileOneRunsIsRefused(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := upgradeConfig(t, h, "1.0.0")
	gate := make(chan struct{})
	srv := exeServer(t, map[string][]byte{"/agent": []byte("not the announced bytes")}, map[string]chan struct{}{"/agent": gate})
	a := start(t, cfg)
	a.waitConnected(t, 1)
	in := inbox(h.conn(t, 1))
	args := upgradeArgs(srv, "/agent", "2.0.0", exeContent("2.0.0"))

	acceptedState(t, in.upgrade(t, args))
	r := in.upgrade(t, args)
	if r.OK || r.Error == nil || r.Error.Code != agentproto.CodeFailed ||
		r.Error.Message != "another upgrade is already in progress (to version 2.0.0, downloading)" {
		t.Errorf("second upgrade: %+v (error %+v)", r, r.Error)
	}
	close(gate)
	if r := in.report(t, agentproto.UpgradeFailed); !strings.Contains(r.Reason, "mismatch") {
		t.Errorf("failed report %+v", r)
	}
	assertFile(t, cfg.Executable, exeContent("1.0.0"))
}

func TestUpgradeReportMadeWhileDisconnectedIsDelivered(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := upgradeConfig(t, h, "1.0.0")
	gate := make(chan struct{})
	srv := exeServer(t, map[string][]byte{"/agent": []byte("tampered")}, map[string]chan struct{}{"/agent": gate})
	a := start(t, cfg)
	a.waitConnected(t, 1)
	first := h.conn(t, 1)
	acceptedState(t, inbox(first).upgrade(t, upgradeArgs(srv, "/agent", "2.0.0", exeContent("2.0.0"))))

	h.with(func(h *fakeHub) { h.refuseAll = &refusal{status: 503, code: "unavailable"} })
	_ = first.conn.WriteClose(4003, []byte("dropped"))
	waitFor(t, 5*time.Second, "disconnected", func() bool { return !a.Status().Connected })
	close(gate) // the download ends, and fails, while the agent is offline
	waitFor(t, 5*time.Second, "failure recorded", func() bool {
		r := loadRecord(t, cfg.StateDir)
		return r != nil && r.State == agentproto.UpgradeFailed
	})

	h.with(func(h *fakeHub) { h.refuseAll = nil })
	a.waitConnected(t, 2)
	in := inbox(h.conn(t, 2))
	if r := in.report(t, agentproto.UpgradeFailed); r.Version != "2.0.0" || !strings.Contains(r.Reason, "size mismatch") {
		t.Errorf("report after reconnect %+v", r)
	}
	waitFor(t, 5*time.Second, "record cleared", func() bool { return loadRecord(t, cfg.StateDir) == nil })
}

func TestUpgradeLetsInFlightCommandsFinish(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := upgradeConfig(t, h, "1.0.0")
	release := make(chan struct{})
	cfg.Commands = NewRegistry()
	cfg.Commands.Register("test.slow", func(ctx context.Context, _ json.RawMessage) (any, error) {
		select {
		case <-release:
			return "finished", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	newExe := exeContent("2.0.0")
	srv := exeServer(t, map[string][]byte{"/agent": newExe}, nil)
	a := start(t, cfg)
	a.waitConnected(t, 1)
	c := h.conn(t, 1)
	in := inbox(c)
	slow := uuid.NewString()
	c.cmd(slow, "test.slow", 10*time.Second, nil)

	acceptedState(t, in.upgrade(t, upgradeArgs(srv, "/agent", "2.0.0", newExe)))
	in.report(t, agentproto.UpgradeRestarting)
	waitFor(t, 5*time.Second, "draining", func() bool {
		a.drainMu.Lock()
		defer a.drainMu.Unlock()
		return a.draining
	})
	late := uuid.NewString()
	c.cmd(late, agentproto.OpPing, 5*time.Second, nil)
	if r := in.resp(t, late); r.OK || r.Error == nil || !strings.Contains(r.Error.Message, "restarting") {
		t.Errorf("command during the restart: %+v (error %+v)", r, r.Error)
	}
	close(release)
	if r := in.resp(t, slow); !r.OK || string(r.Result) != `"finished"` {
		t.Errorf("in-flight command: %+v (error %+v), want it finished", r, r.Error)
	}
	a.waitRestart(t)
}

// pendingRestart prepares what an old agent leaves when it restarts into
// version: the new executable in place, the old one as backup, and the
// record; it returns the config of the next process.
func pendingRestart(t *testing.T, h *fakeHub, from, to string) Config {
	cfg := upgradeConfig(t, h, to)
	backup := upgrade.BackupPath(cfg.Executable)
	if err := os.WriteFile(backup, exeContent(from), 0o755); err != nil {
		t.Fatal(err)
	}
	err := upgrade.SaveRecord(cfg.StateDir, upgrade.Record{Version: to, FromVersion: from, Exe: cfg.Executable,
		Backup: backup, State: agentproto.UpgradeRestarting, Time: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestNewExecutableConfirmedByWelcome(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := pendingRestart(t, h, "1.0.0", "2.0.0")
	cfg.UpgradeConfirmTimeout = time.Minute
	a := start(t, cfg)
	a.waitConnected(t, 1)
	in := inbox(h.conn(t, 1))
	if r := in.report(t, agentproto.UpgradeDone); r != (agentproto.UpgradeReport{Version: "2.0.0", State: agentproto.UpgradeDone}) {
		t.Errorf("report %+v", r)
	}
	waitFor(t, 5*time.Second, "record cleared", func() bool { return loadRecord(t, cfg.StateDir) == nil })
	assertFile(t, cfg.Executable, exeContent("2.0.0"))
	assertOnlyExe(t, cfg.Executable) // the backup is gone
}

func TestNewExecutableNotWelcomedRollsBack(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.with(func(h *fakeHub) { h.refuseAll = &refusal{status: 503, code: "unavailable"} })
	cfg := pendingRestart(t, h, "1.0.0", "2.0.0")
	cfg.UpgradeConfirmTimeout = 300 * time.Millisecond
	a := start(t, cfg)

	re := a.waitRestart(t)
	if re.Exe != cfg.Executable || re.Reason != "rollback to 1.0.0" {
		t.Errorf("restart %+v", re)
	}
	assertFile(t, cfg.Executable, exeContent("1.0.0"))
	assertOnlyExe(t, cfg.Executable)
	const reason = "version 2.0.0 was not accepted by the hub within 300ms"
	if rec := loadRecord(t, cfg.StateDir); rec == nil || rec.State != agentproto.UpgradeRolledBack || rec.Reason != reason {
		t.Fatalf("record %+v", rec)
	}

	// The old version starts (the program restarted into it) and, once
	// welcomed, reports the rollback.
	h.with(func(h *fakeHub) { h.refuseAll = nil })
	old := cfg
	old.AgentVersion = "1.0.0"
	b := start(t, old)
	b.waitConnected(t, 1)
	in := inbox(h.conn(t, 1))
	if r := in.report(t, agentproto.UpgradeRolledBack); r != (agentproto.UpgradeReport{Version: "2.0.0", State: agentproto.UpgradeRolledBack, Reason: reason}) {
		t.Errorf("report %+v", r)
	}
	waitFor(t, 5*time.Second, "record cleared", func() bool { return loadRecord(t, cfg.StateDir) == nil })
}

// TestNewExecutableRestartedKeepsItsDeadline: a new executable that keeps
// being restarted (a crash, a supervisor) without being welcomed is
// rolled back once the confirm timeout has passed since its first start,
// not since its latest.
func TestNewExecutableRestartedKeepsItsDeadline(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	h.with(func(h *fakeHub) { h.refuseAll = &refusal{status: 503, code: "unavailable"} })
	cfg := pendingRestart(t, h, "1.0.0", "2.0.0")
	cfg.UpgradeConfirmTimeout = time.Minute

	startedAt := func() time.Time {
		rec := loadRecord(t, cfg.StateDir)
		if rec == nil {
			t.Fatal("no record")
		}
		return rec.StartedAt
	}
	a := start(t, cfg)
	waitFor(t, 5*time.Second, "first start recorded", func() bool { return !startedAt().IsZero() })
	first := startedAt()
	a.stop(t)
	b := start(t, cfg)
	waitFor(t, 5*time.Second, "attempt to connect", func() bool { return len(h.attemptTimes()) >= 2 })
	b.stop(t)
	if got := startedAt(); !got.Equal(first) {
		t.Fatalf("first start %v became %v at the second start", first, got)
	}

	// Much later, the next start rolls back at once.
	rec := loadRecord(t, cfg.StateDir)
	rec.StartedAt = rec.StartedAt.Add(-time.Hour)
	if err := upgrade.SaveRecord(cfg.StateDir, *rec); err != nil {
		t.Fatal(err)
	}
	c := start(t, cfg)
	c.waitRestart(t)
	assertFile(t, cfg.Executable, exeContent("1.0.0"))
	if rec := loadRecord(t, cfg.StateDir); rec == nil || rec.State != agentproto.UpgradeRolledBack {
		t.Errorf("record %+v", rec)
	}
}

func TestStartFinishesInterruptedUpgrade(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		state  agentproto.UpgradeState
		reason string
		want   agentproto.UpgradeReport
	}{
		{"restarted as the old version", agentproto.UpgradeRestarting, "",
			agentproto.UpgradeReport{Version: "2.0.0", State: agentproto.UpgradeRolledBack, Reason: "the agent restarted as version 1.0.0, not 2.0.0"}},
		{"crashed while downloading", agentproto.UpgradeDownloading, "",
			agentproto.UpgradeReport{Version: "2.0.0", State: agentproto.UpgradeFailed, Reason: "agent restarted during the upgrade"}},
		{"crashed while verifying", agentproto.UpgradeVerifying, "",
			agentproto.UpgradeReport{Version: "2.0.0", State: agentproto.UpgradeFailed, Reason: "agent restarted during the upgrade"}},
		{"failed, not yet reported", agentproto.UpgradeFailed, "restarting into version 2.0.0 failed: exec format error",
			agentproto.UpgradeReport{Version: "2.0.0", State: agentproto.UpgradeFailed, Reason: "restarting into version 2.0.0 failed: exec format error"}},
		{"rolled back, not yet reported", agentproto.UpgradeRolledBack, "version 2.0.0 was not accepted",
			agentproto.UpgradeReport{Version: "2.0.0", State: agentproto.UpgradeRolledBack, Reason: "version 2.0.0 was not accepted"}},
		{"done, not yet reported", agentproto.UpgradeDone, "",
			agentproto.UpgradeReport{Version: "2.0.0", State: agentproto.UpgradeDone}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newFakeHub(t)
			cfg := upgradeConfig(t, h, "1.0.0")
			// Leftovers of the interrupted upgrade.
			for _, leftover := range []string{upgrade.BackupPath(cfg.Executable), cfg.Executable + ".upgrade-123"} {
				if err := os.WriteFile(leftover, []byte("leftover"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := upgrade.SaveRecord(cfg.StateDir, upgrade.Record{Version: "2.0.0", FromVersion: "1.0.0", Exe: cfg.Executable,
				Backup: upgrade.BackupPath(cfg.Executable), State: tt.state, Reason: tt.reason, Time: time.Now().UTC()})
			if err != nil {
				t.Fatal(err)
			}
			a := start(t, cfg)
			a.waitConnected(t, 1)
			if r := inbox(h.conn(t, 1)).report(t, tt.want.State); r != tt.want {
				t.Errorf("report %+v, want %+v", r, tt.want)
			}
			waitFor(t, 5*time.Second, "record cleared", func() bool { return loadRecord(t, cfg.StateDir) == nil })
			assertFile(t, cfg.Executable, exeContent("1.0.0"))
			assertOnlyExe(t, cfg.Executable)
		})
	}
}

func TestAbandonedRestartPutsPreviousBack(t *testing.T) {
	t.Parallel()
	h := newFakeHub(t)
	cfg := pendingRestart(t, h, "1.0.0", "2.0.0")
	re := &RestartError{Exe: cfg.Executable, Reason: "upgrade to 2.0.0", stateDir: cfg.StateDir}
	if err := re.Abandon(errors.New("exec format error")); err != nil {
		t.Fatalf("Abandon: %v", err)
	}
	assertFile(t, cfg.Executable, exeContent("1.0.0"))
	assertOnlyExe(t, cfg.Executable)
	rec := loadRecord(t, cfg.StateDir)
	if rec == nil || rec.State != agentproto.UpgradeRolledBack || rec.Reason != "restarting into version 2.0.0 failed: exec format error" {
		t.Errorf("record %+v", rec)
	}
	// Restarting into the old version after a rollback has nothing to undo.
	if err := re.Abandon(errors.New("again")); err != nil {
		t.Errorf("second Abandon: %v", err)
	}
	assertFile(t, cfg.Executable, exeContent("1.0.0"))
	if err := (&RestartError{Exe: cfg.Executable}).Abandon(errors.New("x")); err != nil {
		t.Errorf("Abandon without a state dir: %v", err)
	}
	if _, err := os.Stat(cfg.Executable); errors.Is(err, fs.ErrNotExist) {
		t.Error("the executable is gone")
	}
}
