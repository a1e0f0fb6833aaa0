package orchestrate

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"

	"hostgate/internal/agent/orchestrate/fakelog"
	"hostgate/internal/eventually"
)

// fakeBin is the fake game program (testdata/fake), built once by
// TestMain.
var fakeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "orchestrate-fake-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeBin = filepath.Join(dir, "fake")
	if out, err := exec.Command("go", "build", "-o", fakeBin, "./testdata/fake").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the fake: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// Fake modes (testdata/fake).
const (
	modeTerm       = "term"     // exits on the quit message
	modeHup        = "hup"      // exits on the window close
	modeStubborn   = "stubborn" // needs the forced termination
	modeController = "controller"
)

// game is a game directory laid out like the manifest, with fakes for
// executables.
type game struct {
	dir string
	log string
}

// newGame lays out a game directory: the controller at ctrl and a fake of
// modes[exe] at each exe (relative, '/'-separated). Every process running
// from it is killed when the test ends.
func newGame(t *testing.T, ctrl string, modes map[string]string) *game {
	t.Helper()
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real // results carry the resolved game directory
	}
	g := &game{dir: filepath.Join(root, "game"), log: filepath.Join(root, "events.log")}
	g.install(t, ctrl, modeController)
	for exe, mode := range modes {
		g.install(t, exe, mode)
	}
	t.Cleanup(func() { g.killAll(t) })
	return g
}

// install copies the fake to exe (relative to the game directory) with
// the given mode. A copy, not a link: /proc/<pid>/exe must name it.
func (g *game) install(t *testing.T, exe, mode string) {
	t.Helper()
	path := filepath.Join(g.dir, filepath.FromSlash(exe))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fakeBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]string{"mode": mode, "log": g.log})
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "fake.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeConfig writes Config.ini as GBK with CRLF line ends from UTF-8
// text with '\n' line ends, and returns its bytes.
func (g *game) writeConfig(t *testing.T, text string) []byte {
	t.Helper()
	b := gbkCRLF(t, text)
	if err := os.WriteFile(filepath.Join(g.dir, ConfigFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

func gbkCRLF(t *testing.T, text string) []byte {
	t.Helper()
	b, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(strings.ReplaceAll(text, "\n", "\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (g *game) path(exe string) string { return filepath.Join(g.dir, filepath.FromSlash(exe)) }

// killAll kills every process running from the game directory, again
// until none is left (the controller may restart a child meanwhile).
func (g *game) killAll(t *testing.T) {
	var left []int
	if !eventually.Within(5*time.Second, func() bool {
		ps, err := linuxProcs{}.under(g.dir)
		if err != nil || len(ps) == 0 {
			return true
		}
		left = left[:0]
		for _, p := range ps {
			left = append(left, p.PID)
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
		return false
	}) {
		t.Errorf("processes still running from %s after the test: %v", g.dir, left)
	}
}

// event is one line the fakes log (testdata/fake).
type event = fakelog.Event

func (g *game) events(t *testing.T) []event { return fakelog.Read(t, g.log) }

// startsOf returns the start events.
func startsOf(es []event) []event {
	var out []event
	for _, e := range es {
		if e.Event == "start" {
			out = append(out, e)
		}
	}
	return out
}

// waitStarted waits until n processes have logged their start.
func (g *game) waitStarted(t *testing.T, n int) []event {
	t.Helper()
	var starts []event
	eventually.True(t, 10*time.Second, fmt.Sprintf("%d started processes", n), func() bool {
		starts = startsOf(g.events(t))
		return len(starts) >= n
	})
	return starts
}

// testOrchestrator is the system orchestrator with short waits.
func testOrchestrator() *Orchestrator {
	o := New()
	o.waits = map[string]time.Duration{}
	for k := range KindWaits {
		o.waits[k] = 500 * time.Millisecond
	}
	o.closeWait = 500 * time.Millisecond
	o.poll = 10 * time.Millisecond
	return o
}

func ptr(n int) *int { return &n }
