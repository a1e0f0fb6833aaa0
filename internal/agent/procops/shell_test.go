package procops

import (
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

// shell runs EXEC_SHELL with program path and data.
func shell(ctx context.Context, t *testing.T, path string, data any) (agentproto.ShellResult, error) {
	t.Helper()
	res, err := call(ctx, t, agentproto.CtlExecShell, path, data)
	if err != nil {
		return agentproto.ShellResult{}, err
	}
	return res.(agentproto.ShellResult), nil
}

// helperArgs is the argument string that runs the test binary as a
// helper in mode (see runHelper).
func helperArgs(mode string, args ...string) string {
	return strings.Join(append([]string{helperArg, mode}, args...), " ")
}

func TestShellCapturesOutputAndExitCode(t *testing.T) {
	res, err := shell(t.Context(), t, testExe(t), agentproto.ShellData{Args: helperArgs("out", "5", "3", "7")})
	if err != nil {
		t.Fatal(err)
	}
	want := agentproto.ShellResult{Stdout: "ooooo", Stderr: "eee", ExitCode: 7}
	res.DurationMs = 0
	if res != want {
		t.Fatalf("result = %+v, want %+v", res, want)
	}
}

func TestShellOutputCap(t *testing.T) {
	over := agentproto.ShellOutputCap + 300_000
	res, err := shell(t.Context(), t, testExe(t), agentproto.ShellData{
		Args: helperArgs("out", strconv.Itoa(over), "10", "0"), TimeoutS: 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || len(res.Stdout) != agentproto.ShellOutputCap || res.Stderr != strings.Repeat("e", 10) {
		t.Fatalf("truncated=%v len(stdout)=%d stderr=%q; want true, %d, 10 e", res.Truncated, len(res.Stdout), res.Stderr, agentproto.ShellOutputCap)
	}
	if res.TimedOut || res.ExitCode != 0 {
		t.Fatalf("a child writing past the cap did not finish: %+v", res)
	}
}

// TestShellArgsReachProgram checks the argument string reaches the
// program as the platform's rules split it: POSIX shell words on Linux,
// the program's own command-line parsing on Windows.
func TestShellArgsReachProgram(t *testing.T) {
	tests := map[string][]struct {
		args string
		want []string
	}{
		"windows": {
			{`a "b c" d`, []string{"a", "b c", "d"}},
			{`x\"y "p\"q"`, []string{`x"y`, `p"q`}},
			{`C:\dir\ 'single'`, []string{`C:\dir\`, `'single'`}},
			{`%PATH% *.go`, []string{"%PATH%", "*.go"}},
		},
		"posix": {
			{`a "b c" d`, []string{"a", "b c", "d"}},
			{`'d e' f\ g "h\"i"`, []string{"d e", "f g", `h"i`}},
			{`'$HOME' $HOME *.go '' x`, []string{"$HOME", "$HOME", "*.go", "", "x"}},
			{`a|b;c 中文`, []string{"a|b;c", "中文"}},
		},
	}
	key := "posix"
	if runtime.GOOS == "windows" {
		key = "windows"
	}
	for _, tt := range tests[key] {
		res, err := shell(t.Context(), t, testExe(t), agentproto.ShellData{Args: helperArgs("args") + " " + tt.args})
		if err != nil {
			t.Fatalf("args %q: %v", tt.args, err)
		}
		var got []string
		if err := json.Unmarshal([]byte(res.Stdout), &got); err != nil {
			t.Fatalf("args %q: output %q: %v", tt.args, res.Stdout, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("args %q reached the program as %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestShellTimeoutKillsTree is the acceptance test of the timeout: a
// command whose child and grandchild keep running is killed whole at
// timeout_s, and the call does not hang on their output pipes.
func TestShellTimeoutKillsTree(t *testing.T) {
	start := time.Now()
	res, err := shell(t.Context(), t, testExe(t), agentproto.ShellData{Args: helperArgs("tree", "2"), TimeoutS: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != -1 {
		t.Fatalf("timed_out=%v exit_code=%d, want true, -1 (%+v)", res.TimedOut, res.ExitCode, res)
	}
	if took := time.Since(start); took > 6*time.Second {
		t.Fatalf("the call took %v after a 1 s timeout", took)
	}
	pids, _ := treePids(t, res.Stdout)
	if len(pids) != 3 {
		t.Fatalf("expected 3 helpers in the output, got %v from %q", pids, res.Stdout)
	}
	waitGone(t, pids, 5*time.Second)
}

func TestShellCommandDeadlineKillsTree(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	res, err := shell(ctx, t, testExe(t), agentproto.ShellData{Args: helperArgs("tree", "1"), TimeoutS: 60})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != -1 {
		t.Fatalf("timed_out=%v exit_code=%d at the command's deadline, want true, -1", res.TimedOut, res.ExitCode)
	}
	pids, _ := treePids(t, res.Stdout)
	if len(pids) != 2 {
		t.Fatalf("expected 2 helpers in the output, got %v", pids)
	}
	waitGone(t, pids, 5*time.Second)
}

func TestShellCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	_, err := shell(ctx, t, testExe(t), agentproto.ShellData{Args: helperArgs("sleep"), TimeoutS: 60})
	wantCode(t, err, agentproto.CodeFailed)
	if took := time.Since(start); took > 6*time.Second {
		t.Fatalf("a cancelled command took %v", took)
	}
}

func TestShellErrors(t *testing.T) {
	notFound := "/no/such/dir/prog"
	if runtime.GOOS == "windows" {
		notFound = `C:\no\such\dir\prog.exe`
	}
	tests := []struct {
		name, path string
		data       any
		code       string
	}{
		{"no path", "", agentproto.ShellData{}, agentproto.CodeBadArgs},
		{"relative path", "bin/prog", agentproto.ShellData{}, agentproto.CodeBadArgs},
		{"timeout too long", testExe(t), agentproto.ShellData{TimeoutS: agentproto.MaxShellTimeoutS + 1}, agentproto.CodeBadArgs},
		{"negative timeout", testExe(t), agentproto.ShellData{TimeoutS: -1}, agentproto.CodeBadArgs},
		{"unknown field", testExe(t), json.RawMessage(`{"argz":"x"}`), agentproto.CodeBadArgs},
		{"data not an object", testExe(t), "x", agentproto.CodeBadArgs},
		{"NUL in args", testExe(t), agentproto.ShellData{Args: "a\x00b"}, agentproto.CodeBadArgs},
		{"not in PATH", "no-such-program-procops", agentproto.ShellData{}, CodeNotFound},
		{"no such file", notFound, agentproto.ShellData{}, CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := shell(t.Context(), t, tt.path, tt.data)
			wantCode(t, err, tt.code)
		})
	}
}
