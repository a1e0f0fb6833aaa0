package procops

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

// killPid ends pid when the test ends.
func killPid(t *testing.T, pid int) {
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
			_ = p.Release()
		}
		waitGone(t, []int{pid}, 5*time.Second)
	})
}

func TestExecProgramOutlivesCommand(t *testing.T) {
	exe, _ := helperCopy(t)
	ctx, cancel := context.WithCancel(t.Context())
	res, err := call(ctx, t, agentproto.CtlExecProgram, exe, helperArgs("sleep"))
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	pid := res.(agentproto.ExecResult).PID
	if pid <= 0 {
		t.Fatalf("pid = %d", pid)
	}
	killPid(t, pid)
	// An observation window: nothing observable marks the moment by which
	// the command's context would have taken the program with it.
	time.Sleep(500 * time.Millisecond)
	if !alive(pid) {
		t.Fatal("the program ended with the command's context")
	}
}

func TestExecProgramErrors(t *testing.T) {
	notFound := "/no/such/dir/prog"
	if runtime.GOOS == "windows" {
		notFound = `C:\no\such\dir\prog.exe`
	}
	tests := []struct {
		name, path string
		data       any
		code       string
	}{
		{"no path", "", nil, agentproto.CodeBadArgs},
		{"relative path", "bin/prog", nil, agentproto.CodeBadArgs},
		{"data not a string", testExe(t), map[string]string{"a": "b"}, agentproto.CodeBadArgs},
		{"NUL in path", "pro\x00g", nil, agentproto.CodeBadArgs},
		{"not in PATH", "no-such-program-procops", nil, CodeNotFound},
		{"no such file", notFound, "", CodeNotFound},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct {
			name, path string
			data       any
			code       string
		}{"unterminated quote", testExe(t), "a 'b", agentproto.CodeBadArgs})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := call(t.Context(), t, agentproto.CtlExecProgram, tt.path, tt.data)
			wantCode(t, err, tt.code)
		})
	}
}

func TestHandlersCoverTheProcessOps(t *testing.T) {
	hs := Handlers()
	for _, op := range []string{"process.exec", "process.shell", "process.kill", "process.list"} {
		if hs[op] == nil {
			t.Errorf("no handler for %s", op)
		}
	}
	if len(hs) != 4 {
		t.Errorf("%d handlers, want 4", len(hs))
	}
}
