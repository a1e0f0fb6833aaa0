package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestHostsInstaller: the download lands in -o FILE (or the hub's file
// name), readable by its owner only, replacing a file already there; -o -
// writes stdout; a bad format is a usage error sent nowhere.
func TestHostsInstaller(t *testing.T) {
	f := newFakeHub(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "inst.ps1")
	if err := os.WriteFile(out, []byte("old, world-readable"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.cli(t, "hosts", "installer", hostName, "--format", "ps1", "-o", out)
	if r.code != 0 || !strings.Contains(r.stdout, "wrote "+out) || !f.called("GET /v1/api/hosts/"+hostID+"/installer") {
		t.Fatalf("hosts installer: %+v", r)
	}
	b, err := os.ReadFile(out)
	if err != nil || string(b) != "installer ps1 with secrets" {
		t.Fatalf("file %q, %v", b, err)
	}
	if st, err := os.Stat(out); err != nil || runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v; want 0600", st.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".inst.ps1.*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}

	// No -o: the hub's file name, in the current directory.
	t.Chdir(dir)
	r = f.cli(t, "--json", "hosts", "installer", hostID)
	var got map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || got["file"] != "install-"+hostID+".exe" || got["format"] != "exe" {
		t.Fatalf("hosts installer (exe, --json): %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "install-"+hostID+".exe")); err != nil || string(b) != "installer exe with secrets" {
		t.Errorf("default file: %q, %v", b, err)
	}

	if r := f.cli(t, "hosts", "installer", hostID, "--format", "cmd", "-o", "-"); r.code != 0 || r.stdout != "installer cmd with secrets" {
		t.Errorf("-o -: %+v", r)
	}
	ncalls := func() (n int) { f.set(func() { n = len(f.calls) }); return n }
	calls := ncalls()
	if r := f.cli(t, "hosts", "installer", hostID, "--format", "zip"); r.code != exitUsage || !strings.Contains(r.stderr, "want exe, ps1 or cmd") || ncalls() != calls {
		t.Errorf("--format zip: %+v (calls %d → %d)", r, calls, ncalls())
	}
}

// TestChargeLine: a charged command ends with what it cost on stderr (the
// total of its calls, the last balance), as JSON with --json; a command
// whose answers name no charge prints nothing of it.
func TestChargeLine(t *testing.T) {
	f := newFakeHub(t)
	f.set(func() {
		f.shell = map[string]any{"stdout": "hi\n", "exit_code": 0}
		f.charge = [2]string{"5", "94.9"}
	})
	r := f.cli(t, "shell", hostName, "--", "echo", "hi")
	if r.code != 0 || !strings.HasSuffix(r.stderr, "hostgate-cli: charged 5 tokens, balance 94.9\n") {
		t.Errorf("shell: %+v", r)
	}
	f.set(func() { f.charge = [2]string{"0.5", "94.4"} })
	r = f.cli(t, "--json", "read", hostName, "/etc/hostname")
	if r.code != 0 || !strings.HasSuffix(r.stderr, `{"charged": 0.5, "balance": 94.4}`+"\n") {
		t.Errorf("read --json: %+v", r)
	}
	f.set(func() { f.charge = [2]string{"0", ""} }) // free mode
	if r := f.cli(t, "read", hostName, "/etc/hostname"); !strings.HasSuffix(r.stderr, "hostgate-cli: charged 0 tokens\n") {
		t.Errorf("free mode: %+v", r)
	}
	if r := f.cli(t, "hosts", "list"); strings.Contains(r.stderr, "charged") {
		t.Errorf("hosts list names a charge: %+v", r)
	}
	// A charge is said also when the command then fails.
	f.set(func() { f.charge, f.failWith = [2]string{"0", "0.3"}, 402 })
	r = f.cli(t, "shell", hostName, "--", "true")
	if r.code != exitFailed || !strings.HasPrefix(r.stderr, "hostgate-cli: charged 0 tokens, balance 0.3\n") || !strings.HasSuffix(r.stderr, "(402 insufficient_balance)\n") {
		t.Errorf("402: %+v", r)
	}
}

func TestTokensText(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{{"5", "5"}, {"0.1", "0.1"}, {"94.90", "94.9"}, {"0.001", "0.001"}, {"-2.25", "-2.25"}, {"-0.5", "-0.5"}} {
		if got := tokensText(milliTokens(c.in)); got != c.want {
			t.Errorf("%s → %s, want %s", c.in, got, c.want)
		}
	}
}
