package upgrade

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// newExeFiles makes dir/agent with "old" and a staged "new" beside it.
func newExeFiles(t *testing.T) (dir, exe, staged string) {
	t.Helper()
	dir = t.TempDir()
	exe = filepath.Join(dir, exeName("agent"))
	staged = exe + stagedInfix + "1" + exeSuffix
	writeFile(t, exe, "old")
	writeFile(t, staged, "new")
	return dir, exe, staged
}

func TestSwapAndRestore(t *testing.T) {
	t.Parallel()
	for _, moveAside := range []bool{false, true} {
		t.Run(map[bool]string{false: "rename over", true: "move aside (Windows)"}[moveAside], func(t *testing.T) {
			t.Parallel()
			dir, exe, staged := newExeFiles(t)
			writeFile(t, BackupPath(exe), "an older backup")

			backup, err := Swap(exe, staged)
			if err != nil {
				t.Fatalf("Swap: %v", err)
			}
			if backup != BackupPath(exe) {
				t.Errorf("backup %s, want %s", backup, BackupPath(exe))
			}
			assertContent(t, exe, []byte("new"))
			assertContent(t, backup, []byte("old"))
			if _, err := os.Stat(staged); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("staged file still there: %v", err)
			}

			if err := restore(exe, backup, moveAside); err != nil {
				t.Fatalf("restore: %v", err)
			}
			assertContent(t, exe, []byte("old"))
			if names := dirNames(t, dir); !slices.Equal(names, []string{filepath.Base(exe)}) {
				t.Errorf("files after restore: %v, want only the executable", names)
			}
		})
	}
}

func TestSwapUndoesAFailedSecondStep(t *testing.T) {
	t.Parallel()
	dir, exe, staged := newExeFiles(t)
	if err := os.Remove(staged); err != nil {
		t.Fatal(err)
	}
	if _, err := Swap(exe, staged); err == nil || !strings.Contains(err.Error(), "put the new executable in place") {
		t.Fatalf("Swap of a missing file: %v", err)
	}
	assertContent(t, exe, []byte("old"))
	if names := dirNames(t, dir); !slices.Equal(names, []string{filepath.Base(exe)}) {
		t.Errorf("files: %v, want only the executable", names)
	}
}

func TestRestoreWithoutBackup(t *testing.T) {
	t.Parallel()
	for _, moveAside := range []bool{false, true} {
		_, exe, _ := newExeFiles(t)
		err := restore(exe, BackupPath(exe), moveAside)
		if err == nil || !strings.Contains(err.Error(), "no previous executable") {
			t.Errorf("restore without a backup (move aside %v): %v", moveAside, err)
		}
		assertContent(t, exe, []byte("old"))
	}
}

func TestCleanup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, exeName("agent"))
	keep := []string{filepath.Base(exe), "agent-other", "agent.upgrade", "other" + stagedInfix + "1", "agent.json"}
	for _, n := range keep {
		writeFile(t, filepath.Join(dir, n), n)
	}
	leftovers := []string{
		filepath.Base(exe) + stagedInfix + "123" + exeSuffix,
		filepath.Base(exe) + rejectedInfix + "abcd",
	}
	for _, n := range leftovers {
		writeFile(t, filepath.Join(dir, n), n)
	}
	writeFile(t, BackupPath(exe), "backup")

	if err := Cleanup(exe, true); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	want := append(slices.Clone(keep), filepath.Base(BackupPath(exe)))
	slices.Sort(want)
	if got := dirNames(t, dir); !slices.Equal(got, want) {
		t.Errorf("after Cleanup(keep backup): %v, want %v", got, want)
	}
	if err := Cleanup(exe, false); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	slices.Sort(keep)
	if got := dirNames(t, dir); !slices.Equal(got, keep) {
		t.Errorf("after Cleanup: %v, want %v", got, keep)
	}
}

// sleeper is a running copy of the test binary (see TestMain).
type sleeper struct {
	cmd  *exec.Cmd
	stop func()
}

func startSleeper(t *testing.T, exe string) *sleeper {
	t.Helper()
	cmd := exec.Command(exe, "sleep")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	s := &sleeper{cmd: cmd}
	var stopped bool
	s.stop = func() {
		if !stopped {
			stopped = true
			stdin.Close()
			_ = cmd.Wait()
		}
	}
	t.Cleanup(s.stop)
	// Wait until it runs, so the file is in use as a program.
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- l
	}()
	select {
	case l := <-line:
		if !strings.HasPrefix(l, "sleeping") {
			t.Fatalf("%s sleep printed %q", exe, l)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start", exe)
	}
	return s
}

// TestSwapRunningExecutable does on real processes what an upgrade does:
// the old executable runs while Swap replaces it; the new one runs while
// Restore puts the old one back. On Windows (and Wine) a running
// executable can be renamed but not replaced or deleted, which is what the
// move-aside in Restore is for.
func TestSwapRunningExecutable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := selfCopy(t, dir, "agent")
	oldBytes := readFile(t, exe)
	staged := selfCopy(t, dir, "agent"+stagedInfix+"1")
	// A trailing byte keeps the copy runnable (executable formats ignore
	// data past their end) and tells the two files apart.
	newBytes := append(slices.Clone(oldBytes), 'N')
	if err := os.WriteFile(staged, newBytes, 0o755); err != nil {
		t.Fatal(err)
	}

	old := startSleeper(t, exe)
	backup, err := Swap(exe, staged)
	if err != nil {
		t.Fatalf("Swap while the old executable runs: %v", err)
	}
	assertContent(t, exe, newBytes)
	assertContent(t, backup, oldBytes)
	old.stop()

	// The new executable runs from the path and does not get confirmed.
	running := startSleeper(t, exe)
	if err := Restore(exe, backup); err != nil {
		t.Fatalf("Restore while the new executable runs: %v", err)
	}
	assertContent(t, exe, oldBytes)
	if err := Probe(t.Context(), exe, helperVersion); err != nil {
		t.Errorf("the restored executable does not run: %v", err)
	}
	rejected, _ := filepath.Glob(filepath.Join(dir, filepath.Base(exe)+rejectedInfix+"*"))
	if runtime.GOOS == "windows" && len(rejected) != 1 {
		t.Errorf("rejected executables %v, want the running one moved aside", rejected)
	}
	for _, r := range rejected {
		assertContent(t, r, newBytes)
	}

	// What the next start does once the rejected one has exited.
	running.stop()
	if err := Cleanup(exe, false); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{filepath.Base(exe)}) {
		t.Errorf("files left: %v, want only the executable", names)
	}
}
