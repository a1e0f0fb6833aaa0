package procops

import (
	"fmt"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

// TestKillSoft: a process that exits on SIGTERM counts as exited, without
// waiting for the whole timeout_s.
func TestKillSoft(t *testing.T) {
	exe, name := helperCopy(t)
	cmd := startHelper(t, exe, "term")
	start := time.Now()
	res := killByName(t, name, 8)
	want := agentproto.KillResult{Matched: []int{cmd.Process.Pid}, Exited: 1}
	if fmt.Sprint(res) != fmt.Sprint(want) {
		t.Fatalf("result %+v, want %+v", res, want)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("took %v for a process that exits on SIGTERM", took)
	}
}
