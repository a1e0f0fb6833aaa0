package orchestrate

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"

	"hostgate/internal/agent/orchestrate/fakelog"
	"hostgate/internal/agentproto"
	"hostgate/internal/eventually"
)

// The Windows side of the orchestration, end to end through
// procs_windows.go: a family of window fakes (testdata/winfake) started
// detached, found by image path, and shut down in three stages by
// TerminateProcess, WM_COPYDATA 2000<<16 and WM_CLOSE. .ci/wine/test runs
// it under Wine with a virtual display (xvfb-run) and builds the fake
// beforehand (no Go toolchain under Wine): $HOSTGATE_WINFAKE names it. On
// Windows with Go installed the test builds it itself.

// envWinFake names a prebuilt winfake.exe.
const envWinFake = "HOSTGATE_WINFAKE"

var buildWinFake = sync.OnceValues(func() (string, error) {
	if p := os.Getenv(envWinFake); p != "" {
		return p, nil
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", nil // no toolchain: skipped
	}
	dir, err := os.MkdirTemp("", "orchestrate-winfake-")
	if err != nil {
		return "", err
	}
	exe := filepath.Join(dir, "winfake.exe")
	out, err := exec.Command(goBin, "build", "-ldflags=-H=windowsgui", "-o", exe, "./testdata/winfake").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building testdata/winfake: %v\n%s", err, out)
	}
	return exe, nil
})

func winFake(t *testing.T) string {
	t.Helper()
	exe, err := buildWinFake()
	if err != nil {
		t.Fatal(err)
	}
	if exe == "" {
		t.Skipf("needs the window fake: set %s to a build of testdata/winfake (.ci/wine/test does), or put go in PATH", envWinFake)
	}
	return exe
}

// Window fake modes (testdata/winfake).
const (
	winQuit       = "quit"     // exits on WM_COPYDATA 2000<<16
	winClose      = "close"    // ignores it, exits on WM_CLOSE
	winStubborn   = "stubborn" // ignores both
	winController = "controller"
)

type winEvent = fakelog.Event

type winGame struct{ dir, log string }

// newWinGame lays out a game directory with a copy of the window fake at
// each exe (relative, '/'-separated) in the mode given; whatever still
// runs from it is terminated when the test ends.
func newWinGame(t *testing.T, modes map[string]string) *winGame {
	t.Helper()
	fake, err := os.ReadFile(winFake(t))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	g := &winGame{dir: filepath.Join(root, "game"), log: filepath.Join(root, "events.log")}
	for exe, mode := range modes {
		path := g.path(exe)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
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

func (g *winGame) path(exe string) string { return filepath.Join(g.dir, filepath.FromSlash(exe)) }

func (g *winGame) killAll(t *testing.T) {
	var left []int
	if !eventually.Within(10*time.Second, func() bool {
		ps, err := windowsProcs{}.under(g.dir)
		if err != nil || len(ps) == 0 {
			return true
		}
		left = left[:0]
		for _, p := range ps {
			left = append(left, p.PID)
			_ = windowsProcs{}.kill(p)
		}
		return false
	}) {
		t.Errorf("processes still running from %s after the test: %v", g.dir, left)
	}
}

func (g *winGame) events(t *testing.T) []winEvent {
	t.Helper()
	es := fakelog.Read(t, g.log)
	for _, e := range es {
		if strings.HasPrefix(e.Event, "error") {
			t.Fatalf("%s (pid %d) failed: %s", e.Exe, e.PID, e.Event)
		}
	}
	return es
}

// waitReady waits until n fakes have their window (or, the controller,
// have started) and returns their ready events.
func (g *winGame) waitReady(t *testing.T, n int) []winEvent {
	t.Helper()
	var ready []winEvent
	if !eventually.Within(30*time.Second, func() bool {
		ready = ready[:0]
		for _, e := range g.events(t) {
			if e.Event == "ready" {
				ready = append(ready, e)
			}
		}
		return len(ready) >= n
	}) {
		t.Fatalf("%d of %d fakes ready after 30 s: %+v", len(ready), n, ready)
	}
	return ready
}

// winTestOrchestrator has waits long enough for Wine, short enough for a
// test: a fake that ignores a message costs its wait.
func winTestOrchestrator() *Orchestrator {
	o := New()
	o.waits = map[string]time.Duration{}
	for k := range KindWaits {
		o.waits[k] = 3 * time.Second
	}
	o.closeWait = 3 * time.Second
	o.poll = 20 * time.Millisecond
	return o
}

func winPtr(n int) *int { return &n }

// TestWindowsFamily starts a GameCenter family of window fakes through
// procs_windows.go, finds it by image path, and shuts it down: the
// controller terminated, each child stopped in reverse start order at the
// stage its fake needs.
func TestWindowsFamily(t *testing.T) {
	g := newWinGame(t, map[string]string{
		"GameCenter.exe":              winController,
		"DBServer/DBServer.exe":       winQuit,
		"LoginSrv/LoginSrv.exe":       winClose,
		"LogServer/LogDataServer.exe": winStubborn,
		"RunGate/RunGate.exe":         winQuit,
		"SelGate/SelGate.exe":         winQuit,
		"LoginGate/LoginGate.exe":     winClose,
		// M2Server (Mir200/M2Server.exe) is missing.
	})
	cfg, err := simplifiedchinese.GBK.NewEncoder().String("; 传奇服务端配置\r\n[SelGate]\r\n; 选择网关暂停\r\nGetStart=0\r\n\r\n[LoginGate]\r\nGetStart=0\r\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(g.dir, ConfigFile), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	o := winTestOrchestrator()
	res, err := o.Start(t.Context(), StartRequest{BasePath: g.dir, OrchestrateStartData: agentproto.OrchestrateStartData{
		SpawnSubprocesses: true, SpawnDelayMs: winPtr(50), RunGateCount: winPtr(2),
		Enabled: map[string]bool{"LoginGate": true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	type started struct {
		Section string
		Inst    int
	}
	var got []started
	for _, s := range res.Started {
		got = append(got, started{s.Section, s.Instance})
	}
	want := []started{{"DBServer", 0}, {"LoginSrv", 0}, {"LogServer", 0}, {"RunGate", 1}, {"RunGate", 2}, {"LoginGate", 0}}
	if !slices.Equal(got, want) {
		t.Errorf("started %v, want %v", got, want)
	}
	if want := []agentproto.OrchestrateSkipped{{Section: "M2Server", Reason: agentproto.SkipMissing},
		{Section: "SelGate", Reason: agentproto.SkipDisabled}}; !slices.Equal(res.Skipped, want) {
		t.Errorf("skipped %v, want %v", res.Skipped, want)
	}
	if want := []string{"LoginGate.GetStart"}; !slices.Equal(res.ConfigChanged, want) {
		t.Errorf("config_changed %v, want %v", res.ConfigChanged, want)
	}

	// What the fakes saw: each in its own folder (the controller in the
	// game directory), RunGate with its instance number.
	ready := g.waitReady(t, 7)
	byPID := map[int]winEvent{}
	for _, e := range ready {
		byPID[e.PID] = e
	}
	wantReady := append([]agentproto.OrchestrateStarted{{Section: "controller", Exe: res.Controller.Exe, PID: res.Controller.PID}}, res.Started...)
	for _, s := range wantReady {
		e, ok := byPID[s.PID]
		if !ok {
			t.Errorf("%s (pid %d) did not log its start", s.Section, s.PID)
			continue
		}
		wantDir, wantArgs := filepath.Dir(s.Exe), []string(nil)
		if s.Instance > 0 {
			wantArgs = []string{strconv.Itoa(s.Instance)}
		}
		if !strings.EqualFold(e.Exe, s.Exe) || !strings.EqualFold(filepath.Clean(e.Cwd), wantDir) || !slices.Equal(e.Args, wantArgs) {
			t.Errorf("%s: started as %+v, want %s in %s with args %q", s.Section, e, s.Exe, wantDir, wantArgs)
		}
	}

	// Found by image path, with the window the fake reported as its main
	// window.
	ps, err := windowsProcs{}.under(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	found := map[int]string{}
	for _, p := range ps {
		found[p.PID] = p.Exe
	}
	for _, s := range wantReady {
		if exe, ok := found[s.PID]; !ok || !samePath(exe, s.Exe) {
			t.Errorf("under: %s pid %d found as %q (found: %v)", s.Section, s.PID, exe, found)
		}
		if s.Section == "controller" {
			continue
		}
		if w, ok := mainWindow(uint32(s.PID)); !ok || uintptr(w) != byPID[s.PID].HWND {
			t.Errorf("%s: main window %#x (%v), want the fake's %#x", s.Section, w, ok, byPID[s.PID].HWND)
		}
	}
	if len(ps) != len(wantReady) {
		t.Errorf("under found %d processes, want %d: %+v", len(ps), len(wantReady), ps)
	}
	if _, err := o.Start(t.Context(), StartRequest{BasePath: g.dir}); code(err) != CodeAlreadyRunning {
		t.Errorf("second start: %v, want %s", err, CodeAlreadyRunning)
	}

	sd, err := o.Shutdown(t.Context(), ShutdownRequest{BasePath: g.dir})
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
		{Section: "RunGate", PID: pidOf["RunGate2"], Stage: agentproto.StageQuit},
		{Section: "RunGate", PID: pidOf["RunGate1"], Stage: agentproto.StageQuit},
		{Section: "M2Server", Stage: agentproto.StageNotRunning},
		{Section: "LogServer", PID: pidOf["LogServer0"], Stage: agentproto.StageKill},
		{Section: "LoginSrv", PID: pidOf["LoginSrv0"], Stage: agentproto.StageClose},
		{Section: "DBServer", PID: pidOf["DBServer0"], Stage: agentproto.StageQuit},
	}
	for i := range sd.Stopped {
		sd.Stopped[i].Exe = ""
	}
	if !slices.Equal(sd.Stopped, wantStopped) {
		t.Errorf("stopped:\ngot  %+v\nwant %+v", sd.Stopped, wantStopped)
	}
	if ps, _ := (windowsProcs{}).under(g.dir); len(ps) != 0 {
		t.Errorf("%d processes still run from the game directory: %+v", len(ps), ps)
	}

	// The messages each fake got, in the order they were stopped.
	var msgs []string
	for _, e := range g.events(t) {
		switch e.Event {
		case "copydata":
			msgs = append(msgs, fmt.Sprintf("%s copydata %#x", filepath.Base(e.Exe), e.DwData))
		case "close", "exit":
			msgs = append(msgs, filepath.Base(e.Exe)+" "+e.Event)
		}
	}
	const q = 2000 << 16
	wantMsgs := []string{
		fmt.Sprintf("LoginGate.exe copydata %#x", q), "LoginGate.exe close", "LoginGate.exe exit",
		fmt.Sprintf("RunGate.exe copydata %#x", q), "RunGate.exe exit",
		fmt.Sprintf("RunGate.exe copydata %#x", q), "RunGate.exe exit",
		fmt.Sprintf("LogDataServer.exe copydata %#x", q), "LogDataServer.exe close",
		fmt.Sprintf("LoginSrv.exe copydata %#x", q), "LoginSrv.exe close", "LoginSrv.exe exit",
		fmt.Sprintf("DBServer.exe copydata %#x", q), "DBServer.exe exit",
	}
	if !slices.Equal(msgs, wantMsgs) {
		t.Errorf("messages:\ngot  %q\nwant %q", msgs, wantMsgs)
	}

	// Nothing left: a second shutdown finds nothing.
	sd, err = o.Shutdown(t.Context(), ShutdownRequest{BasePath: g.dir})
	if err != nil {
		t.Fatal(err)
	}
	if sd.Controller != (agentproto.OrchestrateKilled{}) || len(sd.Stopped) != 7 {
		t.Errorf("second shutdown: controller %+v, %d rows", sd.Controller, len(sd.Stopped))
	}
	for _, s := range sd.Stopped {
		if s.Stage != agentproto.StageNotRunning {
			t.Errorf("second shutdown: %+v, want not_running", s)
		}
	}
}

// TestWindowsQuitWithoutWindow: a process without a window cannot get the
// quit message nor the window close; shutdown goes straight to forced
// termination instead of waiting.
func TestWindowsQuitWithoutWindow(t *testing.T) {
	g := newWinGame(t, map[string]string{
		"GameCenter.exe":        winController,
		"DBServer/DBServer.exe": winController, // no window
	})
	pid, err := windowsProcs{}.start(g.path("DBServer/DBServer.exe"), g.path("DBServer"), nil)
	if err != nil {
		t.Fatal(err)
	}
	g.waitReady(t, 1)
	start := time.Now()
	sd, err := winTestOrchestrator().Shutdown(t.Context(), ShutdownRequest{BasePath: g.dir})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("shutdown took %v: it waited for messages that could not be delivered", d)
	}
	last := sd.Stopped[len(sd.Stopped)-1]
	if last.Section != "DBServer" || last.PID != pid || last.Stage != agentproto.StageKill {
		t.Errorf("DBServer: %+v, want pid %d kill", last, pid)
	}
}
