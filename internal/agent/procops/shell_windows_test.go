package procops

import (
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/windows"

	"hostgate/internal/agentproto"
)

// TestShellTimeoutKillsCmdTree: cmd.exe starts a helper that starts a
// child that starts a grandchild; at the timeout the job object ends all
// of them, cmd.exe included.
func TestShellTimeoutKillsCmdTree(t *testing.T) {
	start := time.Now()
	args := `/s /c ""` + testExe(t) + `" ` + helperArgs("tree", "2") + `"`
	res, err := shell(t.Context(), t, "cmd.exe", agentproto.ShellData{Args: args, TimeoutS: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != -1 {
		t.Fatalf("timed_out=%v exit_code=%d, want true, -1 (%+v)", res.TimedOut, res.ExitCode, res)
	}
	if took := time.Since(start); took > 6*time.Second {
		t.Fatalf("the call took %v after a 1 s timeout", took)
	}
	pids, cmdPid := treePids(t, res.Stdout)
	if len(pids) != 3 || cmdPid == 0 {
		t.Fatalf("expected 3 helpers and cmd.exe's pid in the output, got %v, %d from %q", pids, cmdPid, res.Stdout)
	}
	waitGone(t, append(pids, cmdPid), 5*time.Second)
}

func TestShellCmdBuiltins(t *testing.T) {
	res, err := shell(t.Context(), t, "cmd.exe", agentproto.ShellData{Args: `/c echo hello& echo oops 1>&2& exit /b 3`})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "hello\r\n" || res.Stderr != "oops \r\n" || res.ExitCode != 3 {
		t.Fatalf("result %+v", res)
	}
}

// TestDecodeOEM: output that is not UTF-8 is read in the OEM code page
// (437 under Wine's default locale, 936 on Chinese Windows).
func TestDecodeOEM(t *testing.T) {
	in := []byte{'a', 0x82, 0xb0, 'z'}
	got := outputText(in, false)
	if !utf8.ValidString(got) || len([]rune(got)) != 4 {
		t.Fatalf("decoded %q from %x", got, in)
	}
	want := make([]uint16, 8)
	n, err := windows.MultiByteToWideChar(cpOEM, 0, &in[0], int32(len(in)), &want[0], int32(len(want)))
	if err != nil || string([]rune(got)) != string(utf16Runes(want[:n])) {
		t.Fatalf("decoded %q, want the OEM code page's reading", got)
	}
}

func utf16Runes(w []uint16) []rune {
	out := make([]rune, len(w))
	for i, c := range w {
		out[i] = rune(c)
	}
	return out
}
