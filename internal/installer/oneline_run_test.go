//go:build !windows

package installer

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// fakeAgent stands in for the downloaded agent: it records its arguments
// and standard input (the credentials) beside itself.
const fakeAgent = `#!/bin/sh
printf '%s\n' "$*" > "$(dirname "$0")/../agent-args"
cat > "$(dirname "$0")/../agent-stdin"
echo "hostgate-agent: installed (fake)"
`

// shellWorld runs rendered shell scripts with a PATH of the few tools
// they use, some of them fakes: id (uid), curl (copies the fake agent),
// and sudo when withSudo (runs its command, logging it).
type shellWorld struct {
	dir, bin, prefix, log string
	bins                  []Binary
}

func newShellWorld(t *testing.T, uid int, withSudo bool) shellWorld {
	t.Helper()
	dir := t.TempDir()
	w := shellWorld{dir: dir, bin: filepath.Join(dir, "path"), prefix: filepath.Join(dir, "prefix"), log: filepath.Join(dir, "sudo.log")}
	if err := os.MkdirAll(w.bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"sh", "uname", "mkdir", "mktemp", "rm", "chmod", "cut", "sha256sum", "cat", "dirname", "printf", "true"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("needs %s", tool)
		}
		if err := os.Symlink(p, filepath.Join(w.bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	agent := filepath.Join(dir, "agent.src")
	write := func(path, body string) {
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(agent, fakeAgent)
	write(filepath.Join(w.bin, "id"), "#!/bin/sh\necho "+strconv.Itoa(uid)+"\n")
	write(filepath.Join(w.bin, "curl"), "#!/bin/sh\n# curl -fsSL -o FILE URL\ncat "+agent+" > \"$3\"\n")
	if withSudo {
		write(filepath.Join(w.bin, "sudo"), "#!/bin/sh\necho \"$1\" >> "+w.log+"\nexec \"$@\"\n")
	}
	sum := sha256.Sum256([]byte(fakeAgent))
	arch := map[string]string{"amd64": "amd64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		t.Skip("no installer architecture for " + runtime.GOARCH)
	}
	w.bins = []Binary{{Arch: arch, URL: "https://hub.example/download/agent", SHA256: hex.EncodeToString(sum[:])}}
	return w
}

// run pipes script into sh as `curl … | sh` would, with HOSTGATE_PREFIX
// set (and HOSTGATE_STATE_DIR not, so a non-root user is not in the
// no-root mode).
func (w shellWorld) run(t *testing.T, script []byte) (string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(w.bin, "sh"))
	cmd.Stdin = strings.NewReader(string(script))
	cmd.Env = []string{"PATH=" + w.bin, "HOSTGATE_PREFIX=" + w.prefix, "HOSTGATE_SERVICE=detached"}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func TestShellScriptElevatesThroughSudo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the shell installer is for Linux")
	}
	w := newShellWorld(t, 1000, true)
	s, err := Shell(creds(), w.bins)
	if err != nil {
		t.Fatal(err)
	}
	out, code := w.run(t, s.Body)
	if code != 0 || !strings.Contains(out, "not root: the install steps run through sudo") || !strings.Contains(out, "installed (fake)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	log, _ := os.ReadFile(w.log)
	for _, want := range []string{"true", "mkdir", "mktemp", "curl", "sha256sum", "chmod", filepath.Join(w.prefix, "bin", ".hostgate-agent.")} {
		if !strings.Contains(string(log), want) {
			t.Errorf("sudo did not run %q; it ran:\n%s", want, log)
		}
	}
	args, _ := os.ReadFile(filepath.Join(w.prefix, "agent-args"))
	if !strings.HasPrefix(string(args), "install --prefix "+w.prefix+" --state-dir /var/lib/hostgate-agent --service detached --config -") {
		t.Errorf("agent args %q", args)
	}
	if stdin, _ := os.ReadFile(filepath.Join(w.prefix, "agent-stdin")); !strings.Contains(string(stdin), `"install_token":"tok-123"`) {
		t.Errorf("agent stdin %q", stdin)
	}
	if entries, _ := filepath.Glob(filepath.Join(w.prefix, "bin", ".hostgate-agent.*")); len(entries) != 0 {
		t.Errorf("the download is left behind: %v", entries)
	}
}

func TestShellScriptAsRootNeedsNoSudo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the shell installer is for Linux")
	}
	w := newShellWorld(t, 0, false)
	s, _ := Shell(creds(), w.bins)
	out, code := w.run(t, s.Body)
	if code != 0 || strings.Contains(out, "sudo") || !strings.Contains(out, "installed (fake)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// Not root, no sudo: a clear message, exit 1, nothing downloaded, and how
// to get a new line (the fetch spent the token).
func TestShellScriptWithoutRootOrSudo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the shell installer is for Linux")
	}
	w := newShellWorld(t, 1000, false)
	s, _ := Shell(creds(), w.bins)
	out, code := w.run(t, s.Body)
	if code != ExitScript || !strings.Contains(out, "needs root and sudo is not installed: run the line as root") ||
		!strings.Contains(out, "Re-issue install token") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(w.prefix, "bin")); err == nil {
		t.Error("the script went on after refusing")
	}
}

func TestShellScriptChecksumMismatchIsExit5(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the shell installer is for Linux")
	}
	w := newShellWorld(t, 0, false)
	w.bins[0].SHA256 = strings.Repeat("0", 64)
	s, _ := Shell(creds(), w.bins)
	out, code := w.run(t, s.Body)
	if code != ExitChecksum || !strings.Contains(out, "does not match its SHA-256; nothing was installed") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(w.prefix, "agent-args")); err == nil {
		t.Error("the agent ran")
	}
}

// The refusal script runs under sh, says what happened and how to get a
// new line, and exits ExitRefused; the PowerShell one throws inside a
// script block. Neither names a host, a token or a secret.
func TestRefusedScripts(t *testing.T) {
	if strings.ContainsAny(newLineHint, "\"`$\\") {
		t.Errorf("newLineHint is not safe in a double-quoted sh string: %s", newLineHint)
	}
	sh := Refused("sh")
	w := newShellWorld(t, 0, false)
	out, code := w.run(t, sh.Body)
	if code != ExitRefused {
		t.Errorf("exit %d, want %d", code, ExitRefused)
	}
	for _, want := range []string{"already used or has expired", "(Re-issue install token)",
		"hostgate-cli hosts credentials HOST", "POST /v1/api/hosts/{id}/install-token", "host's page"} {
		if !strings.Contains(out, want) {
			t.Errorf("sh output lacks %q:\n%s", want, out)
		}
	}
	ps := string(Refused(PS1).Body)
	lines := strings.Split(strings.TrimRight(ps, "\r\n"), "\r\n")
	if lines[1] != "& {" || lines[len(lines)-1] != "}" || !strings.HasPrefix(lines[len(lines)-2], "throw 'hostgate: ") {
		t.Errorf("ps1:\n%s", ps)
	}
	if strings.Contains(ps, "exit") || !strings.Contains(ps, "hostgate-cli hosts credentials HOST") {
		t.Errorf("ps1:\n%s", ps)
	}
	if sh.ContentType != "text/plain; charset=utf-8" || Refused(PS1).ContentType != sh.ContentType {
		t.Errorf("content types %q", sh.ContentType)
	}
}
