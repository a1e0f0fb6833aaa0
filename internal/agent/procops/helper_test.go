package procops

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/eventually"
)

// The test binary doubles as the helper process the tests start, so the
// same tests run on Linux and under Wine: "<test binary> procops-helper
// MODE ARGS..." runs a helper instead of the tests.
const helperArg = "procops-helper"

// helperLife bounds how long a helper sleeps, so that a failed test does
// not leave it running for long.
const helperLife = 60 * time.Second

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == helperArg {
		os.Exit(runHelper(os.Args[2], os.Args[3:]))
	}
	os.Exit(m.Run())
}

// runHelper is the helper process. Modes:
//
//	sleep            print "ready PID", sleep
//	term             exit 0 on SIGTERM; print "ready PID", sleep
//	ignore-term      ignore SIGTERM; print "ready PID", sleep
//	tree N           print "pid PID PPID", start "tree N-1" (N > 0) with
//	                 the same stdout, sleep
//	args A...        print the arguments as a JSON array
//	out O E CODE     write O bytes 'o' to stdout, E bytes 'e' to stderr,
//	                 exit with CODE
//	window           (Windows) open a window, print "ready PID" (or
//	                 "no-window"), exit 0 when the window is closed
func runHelper(mode string, args []string) int {
	switch mode {
	case "sleep":
	case "term":
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM)
		go func() { <-c; os.Exit(0) }()
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
	case "tree":
		return helperTree(args)
	case "args":
		_ = json.NewEncoder(os.Stdout).Encode(args)
		return 0
	case "out":
		return helperOut(args)
	case "window":
		return helperWindow()
	default:
		fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
		return 2
	}
	fmt.Printf("ready %d\n", os.Getpid())
	time.Sleep(helperLife)
	return 0
}

func helperTree(args []string) int {
	n, _ := strconv.Atoi(args[0])
	fmt.Printf("pid %d %d\n", os.Getpid(), os.Getppid())
	if n > 0 {
		exe, _ := os.Executable()
		c := exec.Command(exe, helperArg, "tree", strconv.Itoa(n-1))
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	time.Sleep(helperLife)
	return 0
}

func helperOut(args []string) int {
	o, _ := strconv.Atoi(args[0])
	e, _ := strconv.Atoi(args[1])
	code, _ := strconv.Atoi(args[2])
	_, _ = os.Stdout.Write([]byte(strings.Repeat("o", o)))
	_, _ = os.Stderr.Write([]byte(strings.Repeat("e", e)))
	return code
}

// testExe is the path of the test binary.
func testExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// helperCopy copies the test binary under a unique short name (the Linux
// process name keeps 15 bytes), so that killing by name reaches only this
// test's processes, and returns its path and process name.
func helperCopy(t *testing.T) (path, name string) {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	name = "pk" + hex.EncodeToString(b[:])
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	path = filepath.Join(t.TempDir(), name)
	src, err := os.Open(testExe(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path, name
}

// startHelper starts helper exe in mode, waits for its "ready" line and
// returns it; the process is killed and reaped when the test ends.
func startHelper(t *testing.T, exe, mode string) *exec.Cmd {
	t.Helper()
	cmd, first := launchHelper(t, exe, mode)
	if !strings.HasPrefix(first, "ready ") {
		t.Fatalf("helper %s said %q, want ready", mode, first)
	}
	return cmd
}

// launchHelper starts helper exe in mode and returns it with the first
// line it printed; the process is killed and reaped when the test ends.
func launchHelper(t *testing.T, exe, mode string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(exe, helperArg, mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-waited
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- s
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case s := <-line:
		return cmd, s
	case <-time.After(10 * time.Second):
		t.Fatalf("helper %s printed nothing", mode)
		return nil, ""
	}
}

// call runs the handler of op with path and data (marshalled unless it is
// already a json.RawMessage).
func call(ctx context.Context, t *testing.T, ctl int64, path string, data any) (any, error) {
	t.Helper()
	args := agentproto.ControlArgs{Path: path}
	if data != nil {
		raw, ok := data.(json.RawMessage)
		if !ok {
			var err error
			if raw, err = json.Marshal(data); err != nil {
				t.Fatal(err)
			}
		}
		args.Data = raw
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := Handlers()[agentproto.OpName(ctl)]
	if !ok {
		t.Fatalf("no handler for %s", agentproto.OpName(ctl))
	}
	return h(ctx, raw)
}

// wantCode fails unless err is an *agentproto.Error with code.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	ae, ok := err.(*agentproto.Error)
	if !ok || ae.Code != code {
		t.Fatalf("error = %v, want code %s", err, code)
	}
}

// waitGone waits until none of pids runs, failing after d.
func waitGone(t *testing.T, pids []int, d time.Duration) {
	t.Helper()
	var left []int
	if !eventually.Within(d, func() bool {
		left = left[:0]
		for _, p := range pids {
			if alive(p) {
				left = append(left, p)
			}
		}
		return len(left) == 0
	}) {
		t.Fatalf("processes still running after %v: %v", d, left)
	}
}

// treePids parses the "pid PID PPID" lines of helper tree output: every
// helper's pid, and the parent of the first (the shell that started it).
func treePids(t *testing.T, out string) (pids []int, firstParent int) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "pid" {
			continue
		}
		p, _ := strconv.Atoi(f[1])
		pp, _ := strconv.Atoi(f[2])
		if len(pids) == 0 {
			firstParent = pp
		}
		pids = append(pids, p)
	}
	return pids, firstParent
}
