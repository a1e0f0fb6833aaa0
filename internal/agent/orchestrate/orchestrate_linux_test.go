package orchestrate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

// gameCenter is the default family with a fake for each child.
var gameCenter = map[string]string{
	"DBServer/DBServer.exe":       modeTerm,
	"LoginSrv/LoginSrv.exe":       modeHup,
	"LogServer/LogDataServer.exe": modeStubborn,
	"Mir200/M2Server.exe":         modeTerm,
	"RunGate/RunGate.exe":         modeTerm,
	"SelGate/SelGate.exe":         modeHup,
	"LoginGate/LoginGate.exe":     modeHup,
}

const gameCenterConfig = `; 传奇服务端配置 — 由 GameCenter 生成
[GameCenter]
ServerName = 热血传奇

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
`

func sessionID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	sid, _ := strconv.Atoi(f[3])
	return sid
}

// TestStartAndShutdownFamily is the acceptance story of issue 18: the
// family starts in manifest order, spawn_delay_ms apart, with three
// RunGates, GetStart=0 and enabled honoured and written back; shutdown
// kills the controller first and stops the children in reverse order,
// each at the stage its fake needs, and nothing is restarted.
func TestStartAndShutdownFamily(t *testing.T) {
	g := newGame(t, "GameCenter.exe", gameCenter)
	cfgBefore := g.writeConfig(t, gameCenterConfig)
	o := testOrchestrator()
	const delayMs = 200
	res, err := o.Start(t.Context(), StartRequest{BasePath: g.dir, OrchestrateStartData: agentproto.OrchestrateStartData{
		SpawnSubprocesses: true, SpawnDelayMs: ptr(delayMs), RunGateCount: ptr(3),
		Enabled: map[string]bool{"LoginGate": true},
		Ports:   map[string]int{"DBServer.GatePort": 5101},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.GameDir != g.dir || res.Controller.Exe != g.path("GameCenter.exe") || res.Controller.PID == 0 {
		t.Errorf("game_dir %q, controller %+v", res.GameDir, res.Controller)
	}
	type started struct {
		section string
		inst    int
	}
	var got []started
	for _, s := range res.Started {
		got = append(got, started{s.Section, s.Instance})
	}
	want := []started{{"DBServer", 0}, {"LoginSrv", 0}, {"LogServer", 0}, {"M2Server", 0},
		{"RunGate", 1}, {"RunGate", 2}, {"RunGate", 3}, {"LoginGate", 0}}
	if !slices.Equal(got, want) {
		t.Errorf("started %v, want %v", got, want)
	}
	if want := []agentproto.OrchestrateSkipped{{Section: "SelGate", Reason: agentproto.SkipDisabled}}; !slices.Equal(res.Skipped, want) {
		t.Errorf("skipped %v, want %v", res.Skipped, want)
	}
	if want := []string{"DBServer.GatePort", "LoginGate.GetStart"}; !slices.Equal(res.ConfigChanged, want) {
		t.Errorf("config_changed %v, want %v", res.ConfigChanged, want)
	}
	cfgAfter, _ := os.ReadFile(filepath.Join(g.dir, ConfigFile))
	wantCfg := bytes.Replace(bytes.Replace(cfgBefore, []byte("GatePort = 5100"), []byte("GatePort = 5101"), 1),
		[]byte("[LoginGate]\r\nGetStart=0"), []byte("[LoginGate]\r\nGetStart=1"), 1)
	if !bytes.Equal(cfgAfter, wantCfg) {
		t.Errorf("Config.ini:\ngot  %q\nwant %q", cfgAfter, wantCfg)
	}

	starts := g.waitStarted(t, 9)
	checkStarts(t, g, res, starts, delayMs)

	// Shutdown, with timeout_override_s replacing every wait.
	sd, err := o.Shutdown(t.Context(), ShutdownRequest{BasePath: g.dir,
		OrchestrateShutdownData: agentproto.OrchestrateShutdownData{TimeoutOverrideS: ptr(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if sd.Controller != (agentproto.OrchestrateKilled{PID: res.Controller.PID, Killed: true}) {
		t.Errorf("controller %+v, want pid %d killed", sd.Controller, res.Controller.PID)
	}
	pidOf := map[string]int{}
	for _, s := range res.Started {
		pidOf[s.Section+strconv.Itoa(s.Instance)] = s.PID
	}
	wantStopped := []agentproto.OrchestrateStopped{
		{Section: "LoginGate", PID: pidOf["LoginGate0"], Stage: agentproto.StageClose},
		{Section: "SelGate", Stage: agentproto.StageNotRunning},
		{Section: "RunGate", PID: pidOf["RunGate3"], Stage: agentproto.StageQuit},
		{Section: "RunGate", PID: pidOf["RunGate2"], Stage: agentproto.StageQuit},
		{Section: "RunGate", PID: pidOf["RunGate1"], Stage: agentproto.StageQuit},
		{Section: "M2Server", PID: pidOf["M2Server0"], Stage: agentproto.StageQuit},
		{Section: "LogServer", PID: pidOf["LogServer0"], Stage: agentproto.StageKill},
		{Section: "LoginSrv", PID: pidOf["LoginSrv0"], Stage: agentproto.StageClose},
		{Section: "DBServer", PID: pidOf["DBServer0"], Stage: agentproto.StageQuit},
	}
	for i := range sd.Stopped {
		sd.Stopped[i].Exe = "" // checked below
	}
	if !slices.Equal(sd.Stopped, wantStopped) {
		t.Errorf("stopped:\ngot  %+v\nwant %+v", sd.Stopped, wantStopped)
	}
	if ps, _ := (linuxProcs{}).under(g.dir); len(ps) != 0 {
		t.Errorf("%d processes still run from the game directory: %+v", len(ps), ps)
	}
	// The controller was gone before any child exited: nothing restarted.
	// No process runs from the game directory (checked above), so no start
	// can still be logged: the log is complete.
	if n := len(startsOf(g.events(t))); n != 9 {
		t.Errorf("%d processes started in all, want 9 (a child was restarted)", n)
	}
	// Each fake saw the signals its stage implies, in reverse start order.
	var sigs []string
	for _, e := range g.events(t) {
		if e.Event == "signal" {
			sigs = append(sigs, filepath.Base(e.Exe)+" "+e.Signal)
		}
	}
	wantSigs := []string{"LoginGate.exe terminated", "LoginGate.exe hangup",
		"RunGate.exe terminated", "RunGate.exe terminated", "RunGate.exe terminated", "M2Server.exe terminated",
		"LogDataServer.exe terminated", "LogDataServer.exe hangup", "LoginSrv.exe terminated", "LoginSrv.exe hangup",
		"DBServer.exe terminated"}
	if !slices.Equal(sigs, wantSigs) {
		t.Errorf("signals:\ngot  %v\nwant %v", sigs, wantSigs)
	}
}

// checkStarts checks what the fakes logged at their start: order,
// working directories, arguments, detachment and spacing.
func checkStarts(t *testing.T, g *game, res StartResult, starts []event, delayMs int) {
	t.Helper()
	if starts[0].Exe != res.Controller.Exe || starts[0].Cwd != g.dir || len(starts[0].Args) != 0 {
		t.Errorf("first start %+v, want the controller in the game directory without arguments", starts[0])
	}
	ourSID := sessionID(t, os.Getpid())
	for i, e := range starts {
		if i > 0 {
			want := res.Started[i-1]
			if e.PID != want.PID || e.Exe != want.Exe {
				t.Errorf("start %d: %s pid %d, want %s pid %d", i, e.Exe, e.PID, want.Exe, want.PID)
			}
			if e.Cwd != filepath.Dir(want.Exe) {
				t.Errorf("%s ran in %s, want its own folder", e.Exe, e.Cwd)
			}
			wantArgs := []string(nil)
			if want.Instance > 0 {
				wantArgs = []string{strconv.Itoa(want.Instance)}
			}
			if !slices.Equal(e.Args, wantArgs) {
				t.Errorf("%s instance %d got args %q, want %q", want.Section, want.Instance, e.Args, wantArgs)
			}
			// Start times from the kernel, in clock ticks (100 per second).
			gapMs := int(e.StartTicks-starts[i-1].StartTicks) * 10
			if gapMs < delayMs-10 {
				t.Errorf("%s started %d ms after the previous process, want at least %d", want.Section, gapMs, delayMs)
			}
		}
		if e.SID != e.PID || e.SID == ourSID {
			t.Errorf("%s: session %d, want a session of its own (its pid %d, not the agent's %d)", e.Exe, e.SID, e.PID, ourSID)
		}
	}
}

func TestShutdownFamilyAlreadyDown(t *testing.T) {
	g := newGame(t, "GameCenter.exe", gameCenter)
	sd, err := testOrchestrator().Shutdown(t.Context(), ShutdownRequest{BasePath: g.dir})
	if err != nil {
		t.Fatal(err)
	}
	if sd.Controller != (agentproto.OrchestrateKilled{}) {
		t.Errorf("controller %+v, want pid 0 not killed", sd.Controller)
	}
	var got []string
	for _, s := range sd.Stopped {
		if s.Stage != agentproto.StageNotRunning || s.PID != 0 {
			t.Errorf("%+v, want not_running", s)
		}
		got = append(got, s.Section)
	}
	if want := []string{"LoginGate", "SelGate", "RunGate", "M2Server", "LogServer", "LoginSrv", "DBServer"}; !slices.Equal(got, want) {
		t.Errorf("stopped %v, want %v (reverse manifest order)", got, want)
	}
}

// TestShutdownFamilyStartedByHand: shutdown needs nothing from a start:
// it finds processes started by someone else by their executables.
func TestShutdownFamilyStartedByHand(t *testing.T) {
	g := newGame(t, "GameCenter.exe", gameCenter)
	for _, exe := range []string{"GameCenter.exe", "DBServer/DBServer.exe", "LogServer/LogDataServer.exe"} {
		if _, err := (linuxProcs{}).start(g.path(exe), g.dir, nil); err != nil {
			t.Fatal(err)
		}
	}
	g.waitStarted(t, 3)
	sd, err := testOrchestrator().Shutdown(t.Context(), ShutdownRequest{BasePath: g.dir})
	if err != nil {
		t.Fatal(err)
	}
	if !sd.Controller.Killed {
		t.Errorf("controller %+v, want killed", sd.Controller)
	}
	stages := map[string]string{}
	for _, s := range sd.Stopped {
		stages[s.Section] = s.Stage
	}
	if stages["DBServer"] != agentproto.StageQuit || stages["LogServer"] != agentproto.StageKill || stages["M2Server"] != agentproto.StageNotRunning {
		t.Errorf("stages %v", stages)
	}
}

// TestControllerRestartsChildren proves stage 1 matters: while the fake
// controller runs, a child that quits is started again.
func TestControllerRestartsChildren(t *testing.T) {
	g := newGame(t, "GameCenter.exe", map[string]string{"DBServer/DBServer.exe": modeTerm})
	res, err := testOrchestrator().Start(t.Context(), StartRequest{BasePath: g.dir,
		OrchestrateStartData: agentproto.OrchestrateStartData{SpawnSubprocesses: true, SpawnDelayMs: ptr(0)}})
	if err != nil {
		t.Fatal(err)
	}
	g.waitStarted(t, 2)
	if err := syscall.Kill(res.Started[0].PID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	starts := g.waitStarted(t, 3)
	if starts[2].Exe != g.path("DBServer/DBServer.exe") {
		t.Errorf("third start %s, want DBServer restarted by the controller", starts[2].Exe)
	}
}

func TestStartOnlyController(t *testing.T) {
	g := newGame(t, "GameCenter.exe", gameCenter)
	res, err := testOrchestrator().Start(t.Context(), StartRequest{BasePath: g.dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Started) != 0 || len(res.Skipped) != 0 || len(res.ConfigChanged) != 0 {
		t.Errorf("started %v, skipped %v, changed %v; want only the controller", res.Started, res.Skipped, res.ConfigChanged)
	}
	starts := g.waitStarted(t, 1)
	// Start starts everything before it returns, and the fake controller
	// starts nothing of its own: whatever was started runs now, logged or
	// not yet.
	if ps, err := (linuxProcs{}).under(g.dir); err != nil || len(ps) != 1 || ps[0].PID != res.Controller.PID {
		t.Errorf("running from the game directory: %+v (%v), want the controller alone", ps, err)
	}
	if n := len(startsOf(g.events(t))); n != 1 || starts[0].PID != res.Controller.PID {
		t.Errorf("%d processes started, want the controller alone", n)
	}
	if _, err := testOrchestrator().Start(t.Context(), StartRequest{BasePath: g.dir}); code(err) != CodeAlreadyRunning {
		t.Errorf("second start: %v, want %s", err, CodeAlreadyRunning)
	}
}

// TestStartSkips: enabled false is honoured and written to a Config.ini
// that did not exist; a missing executable is skipped.
func TestStartSkips(t *testing.T) {
	g := newGame(t, "GameCenter.exe", map[string]string{
		"DBServer/DBServer.exe": modeTerm, "LoginSrv/LoginSrv.exe": modeTerm, "RunGate/RunGate.exe": modeTerm})
	res, err := testOrchestrator().Start(t.Context(), StartRequest{BasePath: g.dir,
		OrchestrateStartData: agentproto.OrchestrateStartData{SpawnSubprocesses: true, SpawnDelayMs: ptr(0),
			Enabled: map[string]bool{"DBServer": false, "RunGate": true}}})
	if err != nil {
		t.Fatal(err)
	}
	var started []string
	for _, s := range res.Started {
		started = append(started, s.Section+"#"+strconv.Itoa(s.Instance))
	}
	if want := []string{"LoginSrv#0", "RunGate#1"}; !slices.Equal(started, want) {
		t.Errorf("started %v, want %v", started, want)
	}
	want := []agentproto.OrchestrateSkipped{
		{Section: "DBServer", Reason: agentproto.SkipDisabled}, {Section: "LogServer", Reason: agentproto.SkipMissing},
		{Section: "M2Server", Reason: agentproto.SkipMissing}, {Section: "SelGate", Reason: agentproto.SkipMissing},
		{Section: "LoginGate", Reason: agentproto.SkipMissing}}
	if !slices.Equal(res.Skipped, want) {
		t.Errorf("skipped %v, want %v", res.Skipped, want)
	}
	cfg, _ := os.ReadFile(filepath.Join(g.dir, ConfigFile))
	if want := "[DBServer]\r\nGetStart=0\r\n[RunGate]\r\nGetStart=1\r\n"; string(cfg) != want {
		t.Errorf("Config.ini %q, want %q", cfg, want)
	}
	g.waitStarted(t, 3)
}

func TestStartRefusesConfigNotGBK(t *testing.T) {
	g := newGame(t, "GameCenter.exe", gameCenter)
	bad := []byte("[DBServer]\r\nGetStart=1\r\nName=\xff\xfe\r\n")
	path := filepath.Join(g.dir, ConfigFile)
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := testOrchestrator().Start(t.Context(), StartRequest{BasePath: g.dir,
		OrchestrateStartData: agentproto.OrchestrateStartData{SpawnSubprocesses: true, Ports: map[string]int{"DBServer.GatePort": 5100}}})
	if code(err) != CodeConfigInvalid {
		t.Fatalf("err = %v, want %s", err, CodeConfigInvalid)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, bad) {
		t.Errorf("the refused Config.ini changed")
	}
	// Start refuses before it starts anything, and a started fake would
	// run until killed: nothing running means nothing started.
	if ps, err := (linuxProcs{}).under(g.dir); err != nil || len(ps) != 0 {
		t.Errorf("running from the game directory: %+v (%v), want nothing started", ps, err)
	}
	if es := g.events(t); len(es) != 0 {
		t.Errorf("%d events, want nothing started", len(es))
	}
}

// TestStartOtherFamily: orchestrate.json beside another controller.
func TestStartOtherFamily(t *testing.T) {
	g := newGame(t, "Center.bin", map[string]string{"srv/db.bin": modeTerm, "gw/gate.bin": modeHup})
	manifest := `[
  {"section": "DB", "exe": "srv/db.bin", "kind": "database", "args": ["-c", "db.cfg"]},
  {"section": "Gate", "exe": "gw\\gate.bin", "wait_s": 1, "instances": 2}
]`
	if err := os.WriteFile(filepath.Join(g.dir, ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	o := testOrchestrator()
	res, err := o.Start(t.Context(), StartRequest{BasePath: filepath.Dir(g.dir), OrchestrateStartData: agentproto.OrchestrateStartData{
		ControllerExe: "Center.bin", ResolveGameDir: true, SpawnSubprocesses: true, SpawnDelayMs: ptr(0)}})
	if err != nil {
		t.Fatal(err)
	}
	if res.GameDir != g.dir {
		t.Errorf("game_dir %s, want %s", res.GameDir, g.dir)
	}
	// With no delay the fakes may log in any order: compare the sets.
	var got []string
	for _, e := range g.waitStarted(t, 4) {
		rel, _ := filepath.Rel(g.dir, e.Exe)
		got = append(got, rel+" "+strings.Join(e.Args, " "))
	}
	slices.Sort(got)
	if want := []string{"Center.bin ", "gw/gate.bin 1", "gw/gate.bin 2", "srv/db.bin -c db.cfg"}; !slices.Equal(got, want) {
		t.Errorf("started %q, want %q", got, want)
	}
	sd, err := o.Shutdown(t.Context(), ShutdownRequest{BasePath: g.dir,
		OrchestrateShutdownData: agentproto.OrchestrateShutdownData{ControllerExe: "Center.bin"}})
	if err != nil {
		t.Fatal(err)
	}
	var stages []string
	for _, s := range sd.Stopped {
		stages = append(stages, s.Section+":"+s.Stage)
	}
	if want := []string{"Gate:close", "Gate:close", "DB:quit"}; !slices.Equal(stages, want) {
		t.Errorf("stages %v, want %v", stages, want)
	}
}

// TestShutdownWaitsEndWithContext: a cancelled command stops waiting.
func TestShutdownWaitsEndWithContext(t *testing.T) {
	g := newGame(t, "GameCenter.exe", map[string]string{"DBServer/DBServer.exe": modeStubborn})
	if _, err := (linuxProcs{}).start(g.path("DBServer/DBServer.exe"), g.dir, nil); err != nil {
		t.Fatal(err)
	}
	g.waitStarted(t, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	o := testOrchestrator()
	o.waits[KindDatabase] = time.Minute
	begin := time.Now()
	_, err := o.Shutdown(ctx, ShutdownRequest{BasePath: g.dir})
	if err == nil || time.Since(begin) > 10*time.Second {
		t.Errorf("err %v after %v, want a failure soon after the context ended", err, time.Since(begin))
	}
}
