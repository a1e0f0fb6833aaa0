package procops

import (
	"encoding/json"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"hostgate/internal/agentproto"
)

// The cost of starting `echo hi` as EXEC_SHELL does (BenchmarkShellEcho),
// as hostgate-bench's exec floor does (BenchmarkExecFloorEcho), and as the
// floor does plus the new session EXEC_SHELL starts the command in
// (BenchmarkSetsidEcho) or a new process group only (BenchmarkSetpgidEcho):
// docs/performance.md, "A charged command".

func BenchmarkShellEcho(b *testing.B) {
	a := agentproto.ControlArgs{Path: "echo", Data: json.RawMessage(`{"args":"hi","timeout_s":10}`)}
	for b.Loop() {
		if _, err := execShell(b.Context(), a); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExecFloorEcho(b *testing.B) { benchEcho(b, nil) }

func BenchmarkSetsidEcho(b *testing.B) { benchEcho(b, &syscall.SysProcAttr{Setsid: true}) }

func BenchmarkSetpgidEcho(b *testing.B) { benchEcho(b, &syscall.SysProcAttr{Setpgid: true}) }

func benchEcho(b *testing.B, attr *syscall.SysProcAttr) {
	for b.Loop() {
		cmd := exec.Command("echo", "hi")
		var out strings.Builder
		cmd.Stdout, cmd.SysProcAttr = &out, attr
		if err := cmd.Run(); err != nil || out.String() != "hi\n" {
			b.Fatalf("%q, %v", out.String(), err)
		}
	}
}
