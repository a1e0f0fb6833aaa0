package procops

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

// pidsOf parses the numbers a script echoed, one a line.
func pidsOf(t *testing.T, out string) []int {
	t.Helper()
	var pids []int
	for _, f := range strings.Fields(out) {
		p, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		pids = append(pids, p)
	}
	return pids
}

// TestShellTimeoutKillsShellTree runs sh scripts whose background jobs
// stay in the group, leave it for a group of their own, or leave the
// session while their parent runs: at the timeout none is left.
func TestShellTimeoutKillsShellTree(t *testing.T) {
	scripts := map[string]string{
		"background and orphaned": `sleep 300 & echo $!; (sleep 300 & echo $!); echo $$; sleep 300`,
		"own process group":       `set -m; sleep 300 & echo $!; sleep 300 & echo $!; echo $$; wait`,
		"own session":             `setsid sleep 300 & echo $!; echo $$; sleep 300`,
	}
	for name, script := range scripts {
		t.Run(name, func(t *testing.T) {
			if strings.HasPrefix(script, "setsid") {
				if _, err := exec.LookPath("setsid"); err != nil {
					t.Skip("setsid(1) is not installed")
				}
			}
			t.Parallel()
			start := time.Now()
			res, err := shell(t.Context(), t, "sh", agentproto.ShellData{Args: "-c '" + script + "'", TimeoutS: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !res.TimedOut || res.ExitCode != -1 {
				t.Fatalf("timed_out=%v exit_code=%d, want true, -1", res.TimedOut, res.ExitCode)
			}
			if took := time.Since(start); took > 6*time.Second {
				t.Fatalf("the call took %v after a 1 s timeout", took)
			}
			pids := pidsOf(t, res.Stdout)
			if len(pids) < 2 {
				t.Fatalf("the script printed %q", res.Stdout)
			}
			waitGone(t, pids, 5*time.Second)
		})
	}
}

// TestShellLeavesBackgroundRunning: a command that ended normally is not
// a timeout; what it started in the background keeps running, and the
// call waits at most pipeGrace for it to close the output.
func TestShellLeavesBackgroundRunning(t *testing.T) {
	start := time.Now()
	res, err := shell(t.Context(), t, "sh", agentproto.ShellData{Args: `-c 'sleep 30 & echo $!'`, TimeoutS: 10})
	if err != nil {
		t.Fatal(err)
	}
	pids := pidsOf(t, res.Stdout)
	if len(pids) != 1 || res.TimedOut || res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
	t.Cleanup(func() { _ = syscall.Kill(pids[0], syscall.SIGKILL) })
	if took := time.Since(start); took > pipeGrace+3*time.Second {
		t.Fatalf("the call took %v; the background job's pipe held it", took)
	}
	if !alive(pids[0]) {
		t.Fatal("the background job was killed although the command ended normally")
	}
}
