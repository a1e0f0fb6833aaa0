//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"

	"hostgate/internal/agent/orchestrate/fakelog"
	"hostgate/internal/eventually"
	hostgate "hostgate/sdk/go"
)

// The fake game program of the agent's orchestrate tests, built here from
// its package: its behaviour comes from fake.json beside each copy.
const fakePkg = "hostgate/internal/agent/orchestrate/testdata/fake"

var (
	fakeOnce sync.Once
	fakeBin  string
	fakeErr  error
)

func fakeProgram(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hostgate-e2e-fake-")
		if err != nil {
			fakeErr = err
			return
		}
		fakeBin = filepath.Join(dir, "fake")
		if out, err := exec.Command("go", "build", "-o", fakeBin, fakePkg).CombinedOutput(); err != nil {
			fakeErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if fakeErr != nil {
		t.Fatalf("build the fake game program: %v", fakeErr)
	}
	return fakeBin
}

// The family of the test: the default manifest's layout with a fake for
// each executable, M2Server's left out (skipped as missing). Modes of
// testdata/fake: term exits on the quit message (SIGTERM), hup on the
// window close (SIGHUP), stubborn only by forced termination; the
// controller restarts any child that exits while it runs.
var familyModes = map[string]string{
	"GameCenter.exe":              "controller",
	"DBServer/DBServer.exe":       "term",
	"LoginSrv/LoginSrv.exe":       "hup",
	"LogServer/LogDataServer.exe": "stubborn",
	"RunGate/RunGate.exe":         "term",
	"SelGate/SelGate.exe":         "term",
	"LoginGate/LoginGate.exe":     "hup",
}

// familyConfig is Config.ini (written as GBK + CRLF): SelGate off by its
// GetStart, LoginGate off but switched on by the request's enabled.
const familyConfig = `; 传奇服务端配置 — 由 GameCenter 生成
[GameCenter]
ServerName = 热血传奇
    ; 缩进的注释

; 数据库服务器
[DBServer]
GetStart=1
GatePort = 5100

[SelGate]
; 选择网关暂停
GetStart=0

[LoginGate]
GetStart=0
GatePort=7000
; 登录网关结束
`

// fakeEvent is one line of the fakes' log.
type fakeEvent = fakelog.Event

// gameFamily is a game directory below a base directory, with the fakes'
// shared log.
type gameFamily struct {
	base, dir, log string
}

func newGameFamily(t *testing.T) *gameFamily {
	t.Helper()
	base := t.TempDir()
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real // the agent reports resolved paths
	}
	g := &gameFamily{base: base, dir: filepath.Join(base, "mir", "server"), log: filepath.Join(base, "events.log")}
	fake, err := os.ReadFile(fakeProgram(t))
	if err != nil {
		t.Fatal(err)
	}
	for exe, mode := range familyModes {
		path := g.path(exe)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		// A copy, not a link: the agent finds processes by /proc/<pid>/exe.
		if err := os.WriteFile(path, fake, 0o755); err != nil {
			t.Fatal(err)
		}
		cfg, _ := json.Marshal(map[string]string{"mode": mode, "log": g.log})
		if err := os.WriteFile(filepath.Join(filepath.Dir(path), "fake.json"), cfg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { g.killAll(t) })
	return g
}

func (g *gameFamily) path(exe string) string { return filepath.Join(g.dir, filepath.FromSlash(exe)) }

// running lists the pids of the processes whose executable is inside the
// game directory.
func (g *gameFamily) running() []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink("/proc/" + e.Name() + "/exe")
		if err == nil && strings.HasPrefix(exe, g.dir+"/") && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killAll kills whatever still runs from the game directory, again until
// nothing is left (the controller restarts children meanwhile).
func (g *gameFamily) killAll(t *testing.T) {
	gone := eventually.Within(10*time.Second, func() bool {
		pids := g.running()
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		return len(pids) == 0
	})
	if !gone {
		t.Errorf("processes still run from %s: %v", g.dir, g.running())
	}
}

func (g *gameFamily) events(t *testing.T) []fakeEvent { return fakelog.Read(t, g.log) }

func (g *gameFamily) starts(t *testing.T) []fakeEvent {
	var out []fakeEvent
	for _, e := range g.events(t) {
		if e.Event == "start" {
			out = append(out, e)
		}
	}
	return out
}

// orchestratePrice is the price of control.orchestrate.per_call in force.
func orchestratePrice(t *testing.T, h *Hub, cust Customer) float64 {
	t.Helper()
	var out struct {
		Items []struct {
			Code        string  `json:"code"`
			TokenAmount float64 `json:"token_amount"`
		} `json:"items"`
	}
	if s := call(t, "GET", h.URL+"/v1/user/billing/prices", cust.Token, nil, &out); s != 200 {
		t.Fatalf("prices: %d", s)
	}
	for _, p := range out.Items {
		if p.Code == "control.orchestrate.per_call" {
			if p.TokenAmount <= 0 {
				t.Fatalf("control.orchestrate.per_call costs %v: the charges cannot be told apart", p.TokenAmount)
			}
			return p.TokenAmount
		}
	}
	t.Fatal("control.orchestrate.per_call is not among the prices")
	return 0
}

// TestOrchestrateGameFamily is issue 18's acceptance story through the
// real hub and agent binaries and the Go SDK: a GameCenter family of fake
// programs starts in manifest order with three RunGates, GetStart=0 and
// enabled honoured, Config.ini changed only in the keys set; shutdown
// kills the controller first and stops the children in reverse order at
// the stage each fake needs; an out-of-range run_gate_count is refused
// before any charge; each call costs the price of
// control.orchestrate.per_call. On SQLite and on PostgreSQL + Redis.
func TestOrchestrateGameFamily(t *testing.T) {
	for _, scaled := range []bool{false, true} {
		t.Run(map[bool]string{false: "sqlite", true: "postgres"}[scaled], func(t *testing.T) {
			orchestrateFamily(t, scaled)
		})
	}
}

func orchestrateFamily(t *testing.T, scaled bool) {
	const funds = 100
	h, cust, c, host := onlineHost(t, scaled, funds)
	ctx := t.Context()
	price := orchestratePrice(t, h, cust)
	balance := float64(funds)
	checkBalance := func(after string) {
		t.Helper()
		if got := cust.Balance(h); got != balance {
			t.Errorf("balance %v after %s, want %v", got, after, balance)
		}
	}

	g := newGameFamily(t)
	cfgBefore, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(strings.ReplaceAll(familyConfig, "\n", "\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(g.dir, "Config.ini")
	if err := os.WriteFile(cfgPath, cfgBefore, 0o644); err != nil {
		t.Fatal(err)
	}

	// Refused before the charge: nothing runs, nothing is charged.
	for _, n := range []int{17, 0} {
		_, err := c.OrchestrateStart(ctx, host, g.base, hostgate.OrchestrateStart{ResolveGameDir: true,
			SpawnSubprocesses: true, RunGateCount: &n})
		if e, ok := errors.AsType[*hostgate.Error](err); !ok || e.Status != 400 || e.Code != "invalid_body" {
			t.Errorf("run_gate_count %d: %v, want 400 invalid_body", n, err)
		}
	}
	checkBalance("refused starts")
	if ps := g.running(); len(ps) != 0 {
		t.Fatalf("a refused start started %v", ps)
	}

	// Start: base_path is two levels above the game directory.
	const delayMs = 100
	gates, delay := 3, delayMs
	res, err := c.OrchestrateStart(ctx, host, g.base, hostgate.OrchestrateStart{
		ResolveGameDir: true, SpawnSubprocesses: true, SpawnDelayMs: &delay, RunGateCount: &gates,
		Enabled: map[string]bool{"LoginGate": true}, Ports: map[string]int{"DBServer.GatePort": 5101},
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	balance -= price
	checkBalance("a start")
	if res.GameDir != g.dir || res.Controller.Exe != g.path("GameCenter.exe") || res.Controller.PID == 0 {
		t.Errorf("game_dir %q, controller %+v; want %q", res.GameDir, res.Controller, g.dir)
	}
	type started struct {
		Section, Exe string
		Instance     int
	}
	var got []started
	for _, s := range res.Started {
		got = append(got, started{s.Section, s.Exe, s.Instance})
	}
	want := []started{
		{"DBServer", g.path("DBServer/DBServer.exe"), 0},
		{"LoginSrv", g.path("LoginSrv/LoginSrv.exe"), 0},
		{"LogServer", g.path("LogServer/LogDataServer.exe"), 0},
		{"RunGate", g.path("RunGate/RunGate.exe"), 1},
		{"RunGate", g.path("RunGate/RunGate.exe"), 2},
		{"RunGate", g.path("RunGate/RunGate.exe"), 3},
		{"LoginGate", g.path("LoginGate/LoginGate.exe"), 0},
	}
	if !slices.Equal(got, want) {
		t.Errorf("started:\ngot  %+v\nwant %+v", got, want)
	}
	type skipped struct{ Section, Reason string }
	var gotSkipped []skipped
	for _, s := range res.Skipped {
		gotSkipped = append(gotSkipped, skipped{s.Section, s.Reason})
	}
	if want := []skipped{{"M2Server", "missing"}, {"SelGate", "disabled"}}; !slices.Equal(gotSkipped, want) {
		t.Errorf("skipped %+v, want %+v", gotSkipped, want)
	}
	if want := []string{"DBServer.GatePort", "LoginGate.GetStart"}; !slices.Equal(res.ConfigChanged, want) {
		t.Errorf("config_changed %q, want %q", res.ConfigChanged, want)
	}
	cfgAfter, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	wantCfg := bytes.Replace(cfgBefore, []byte("GatePort = 5100\r\n"), []byte("GatePort = 5101\r\n"), 1)
	wantCfg = bytes.Replace(wantCfg, []byte("[LoginGate]\r\nGetStart=0\r\n"), []byte("[LoginGate]\r\nGetStart=1\r\n"), 1)
	if bytes.Equal(wantCfg, cfgBefore) || !bytes.Equal(cfgAfter, wantCfg) {
		t.Errorf("Config.ini after the start:\ngot  %q\nwant %q", cfgAfter, wantCfg)
	}

	// What the processes themselves saw: the controller, then the children
	// in manifest order, each in its own folder and session, RunGate with
	// its instance number, spawn_delay_ms apart.
	var starts []fakeEvent
	eventually.True(t, 10*time.Second, "8 processes started", func() bool {
		starts = g.starts(t)
		return len(starts) >= 8
	})
	if len(starts) != 8 {
		t.Fatalf("%d processes started, want 8: %+v", len(starts), starts)
	}
	if s := starts[0]; s.PID != res.Controller.PID || s.Exe != g.path("GameCenter.exe") || s.Cwd != g.dir || len(s.Args) != 0 {
		t.Errorf("first start %+v, want the controller (pid %d) in %s without arguments", s, res.Controller.PID, g.dir)
	}
	for i, s := range starts[1:] {
		w := res.Started[i]
		wantArgs := []string(nil)
		if w.Instance > 0 {
			wantArgs = []string{strconv.Itoa(w.Instance)}
		}
		if s.PID != w.PID || s.Exe != w.Exe || s.Cwd != filepath.Dir(w.Exe) || !slices.Equal(s.Args, wantArgs) {
			t.Errorf("start %d: %+v, want pid %d of %s in its folder with args %q", i+1, s, w.PID, w.Exe, wantArgs)
		}
		// Kernel start times, in clock ticks of 10 ms.
		if gap := int(s.StartTicks-starts[i].StartTicks) * 10; gap < delayMs-10 {
			t.Errorf("%s started %d ms after the previous process, want %d", w.Section, gap, delayMs)
		}
	}
	for _, s := range starts {
		if s.SID != s.PID {
			t.Errorf("%s (pid %d) runs in session %d, want a session of its own", s.Exe, s.PID, s.SID)
		}
	}
	// A second start while the family runs is refused by the agent (and
	// charged: the agent ran it).
	if _, err := c.OrchestrateStart(ctx, host, g.base, hostgate.OrchestrateStart{ResolveGameDir: true}); hostgate.ErrorCode(err) != "already_running" {
		t.Errorf("second start: %v, want already_running", err)
	}
	balance -= price
	checkBalance("a refused second start")

	// Shutdown, with one-second waits.
	wait := 1
	sd, err := c.OrchestrateShutdown(ctx, host, g.base, hostgate.OrchestrateShutdown{ResolveGameDir: true, TimeoutOverrideS: &wait})
	if err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	balance -= price
	checkBalance("a shutdown")
	if sd.GameDir != g.dir || sd.Controller.PID != res.Controller.PID || !sd.Controller.Killed {
		t.Errorf("shutdown: game_dir %q, controller %+v; want pid %d killed", sd.GameDir, sd.Controller, res.Controller.PID)
	}
	pidOf := map[string]int{}
	for _, s := range res.Started {
		pidOf[s.Section+strconv.Itoa(s.Instance)] = s.PID
	}
	type stopped struct {
		Section, Exe string
		PID          int
		Stage        string
	}
	var gotStopped []stopped
	for _, s := range sd.Stopped {
		gotStopped = append(gotStopped, stopped{s.Section, s.Exe, s.PID, s.Stage})
	}
	row := func(section, exe string, inst int, stage string) stopped {
		return stopped{section, g.path(exe), pidOf[section+strconv.Itoa(inst)], stage}
	}
	wantStopped := []stopped{
		row("LoginGate", "LoginGate/LoginGate.exe", 0, "close"),
		{Section: "SelGate", Exe: g.path("SelGate/SelGate.exe"), Stage: "not_running"},
		row("RunGate", "RunGate/RunGate.exe", 3, "quit"),
		row("RunGate", "RunGate/RunGate.exe", 2, "quit"),
		row("RunGate", "RunGate/RunGate.exe", 1, "quit"),
		{Section: "M2Server", Exe: g.path("Mir200/M2Server.exe"), Stage: "not_running"},
		row("LogServer", "LogServer/LogDataServer.exe", 0, "kill"),
		row("LoginSrv", "LoginSrv/LoginSrv.exe", 0, "close"),
		row("DBServer", "DBServer/DBServer.exe", 0, "quit"),
	}
	if !slices.Equal(gotStopped, wantStopped) {
		t.Errorf("stopped:\ngot  %+v\nwant %+v", gotStopped, wantStopped)
	}
	if ps := g.running(); len(ps) != 0 {
		t.Errorf("still running after the shutdown: %v", ps)
	}
	// The controller was gone (stage 1 waits for that) before the first
	// child was asked to quit: it restarted nothing. The signals each fake
	// saw, in order.
	if n := len(g.starts(t)); n != 8 {
		t.Errorf("%d processes started in all, want 8: a child was restarted", n)
	}
	var sigs []string
	for _, e := range g.events(t) {
		if e.Event == "signal" {
			sigs = append(sigs, filepath.Base(e.Exe)+" "+e.Signal)
		}
	}
	wantSigs := []string{"LoginGate.exe terminated", "LoginGate.exe hangup",
		"RunGate.exe terminated", "RunGate.exe terminated", "RunGate.exe terminated",
		"LogDataServer.exe terminated", "LogDataServer.exe hangup",
		"LoginSrv.exe terminated", "LoginSrv.exe hangup", "DBServer.exe terminated"}
	if !slices.Equal(sigs, wantSigs) {
		t.Errorf("signals:\ngot  %q\nwant %q", sigs, wantSigs)
	}

	// Shutdown again: nothing runs.
	sd, err = c.OrchestrateShutdown(ctx, host, g.base, hostgate.OrchestrateShutdown{ResolveGameDir: true, TimeoutOverrideS: &wait})
	if err != nil {
		t.Fatalf("second shutdown: %v", err)
	}
	balance -= price
	checkBalance("a second shutdown")
	if sd.Controller.PID != 0 || sd.Controller.Killed || len(sd.Stopped) != 7 {
		t.Errorf("second shutdown: controller %+v, %d rows; want pid 0 not killed, 7 rows", sd.Controller, len(sd.Stopped))
	}
	for _, s := range sd.Stopped {
		if s.Stage != "not_running" || s.PID != 0 {
			t.Errorf("second shutdown: %+v, want not_running", s)
		}
	}

	// And refused once more after the calls that ran: still not charged.
	seventeen := 17
	if _, err := c.OrchestrateStart(ctx, host, g.base, hostgate.OrchestrateStart{RunGateCount: &seventeen}); hostgate.ErrorCode(err) != "invalid_body" {
		t.Errorf("run_gate_count 17: %v, want invalid_body", err)
	}
	checkBalance("a refused start after the family ran")
}
