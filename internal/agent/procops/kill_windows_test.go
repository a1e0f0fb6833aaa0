package procops

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

// TestKillSoft: a program whose window closes on WM_CLOSE counts as
// exited, without waiting for the whole timeout_s.
func TestKillSoft(t *testing.T) {
	exe, name := helperCopy(t)
	pid := startWindowHelper(t, exe)
	start := time.Now()
	res := killByName(t, name, 8)
	want := agentproto.KillResult{Matched: []int{pid}, Exited: 1}
	if fmt.Sprint(res) != fmt.Sprint(want) {
		t.Fatalf("result %+v, want %+v", res, want)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("took %v for a program that exits when its window closes", took)
	}
}

// startWindowHelper starts the window helper, skipping the test where
// the system cannot create a window.
func startWindowHelper(t *testing.T, exe string) int {
	t.Helper()
	cmd, first := launchHelper(t, exe, "window")
	if strings.HasPrefix(first, "no-window") {
		t.Skip("Wine without a display (run it under xvfb-run) cannot create windows, so WM_CLOSE cannot be delivered; the soft-then-hard logic is tested through the victim interface (TestKillSoftThenHard) and on Linux with SIGTERM: " + strings.TrimSpace(first))
	}
	if !strings.HasPrefix(first, "ready ") {
		t.Fatalf("window helper said %q", first)
	}
	return cmd.Process.Pid
}
