package procops

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/eventually"
)

// TestExecProgramDetachedAndReaped: the program runs in a session of its
// own, in its directory, and once it ends the agent reaps it (no zombie).
func TestExecProgramDetachedAndReaped(t *testing.T) {
	exe, _ := helperCopy(t)
	res, err := call(t.Context(), t, agentproto.CtlExecProgram, exe, helperArgs("sleep"))
	if err != nil {
		t.Fatal(err)
	}
	pid := res.(agentproto.ExecResult).PID
	st, err := readStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	if st.Session != pid || st.PPID != os.Getpid() {
		t.Fatalf("stat %+v: want its own session and the agent as parent", st)
	}
	cwd, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "cwd"))
	if err != nil || cwd != filepath.Dir(exe) {
		t.Fatalf("working directory %q (%v), want %q", cwd, err, filepath.Dir(exe))
	}
	p, _ := os.FindProcess(pid)
	_ = p.Kill()
	eventually.True(t, 5*time.Second, "the ended program reaped", func() bool {
		_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
		return os.IsNotExist(err)
	})
}
