//go:build !windows

package e2e

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
)

// TestLinuxOneLineInstall is the acceptance path: the real agent
// binary, served through the hub's agent lookup, installed by the shell
// one-liner exactly as the hub shows it (curl -fsSL … | sh), as root on a
// PATH without sudo, and the host online within 10 s. The prefix and
// state directory are temporary. Without systemd (as on this machine) the
// install starts the agent detached, and the test stops it through its
// pid file. A second paste of the same line prints how to get a new one
// and fails, naming no host and no secret. A second one-liner (a
// reinstall with new credentials) replaces the running agent: the host is
// online again, on the new key, and the old key is refused.
func TestLinuxOneLineInstall(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the shell installer is for Linux")
	}
	for _, tool := range []string{"sh", "curl", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("needs %s (CI=true, so failing rather than skipping)", tool)
			}
			t.Skipf("needs %s", tool)
		}
	}
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("the one-liner installs as root (CI=true, so failing rather than skipping)")
		}
		t.Skip("the one-liner installs as root")
	}
	_, agentBin := binaries(t)
	// The hub serves the real agent binary as its own linux download.
	dist := t.TempDir()
	if err := copyFile(agentBin, filepath.Join(dist, "hostgate-agent-"+runtime.GOOS+"-"+runtime.GOARCH)); err != nil {
		t.Fatal(err)
	}
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_AGENT_DIR", dist))
	u := h.Register(t)
	var k struct{ Secret string }
	h.Client(t).As(u.AccessToken).Do("POST", "/v1/user/api-keys", map[string]string{"name": "e2e"}).Want(t, 200, "").JSON(t, &k)
	api := h.Client(t).As(k.Secret)
	type installCommand struct {
		Shell string `json:"shell"`
	}
	var created struct {
		Host struct {
			ID string `json:"id"`
		} `json:"host"`
		Credentials struct {
			SecretKey      string         `json:"secret_key"`
			InstallCommand installCommand `json:"install_command"`
		} `json:"credentials"`
	}
	api.Do("POST", "/v1/api/hosts", map[string]any{"name": "linux-1", "with_credentials": true}).Want(t, 201, "").JSON(t, &created)
	hostID := created.Host.ID
	line := created.Credentials.InstallCommand.Shell
	if !strings.HasPrefix(line, "curl -fsSL ") || !strings.HasSuffix(line, ".sh | sh") {
		t.Fatalf("install_command.shell = %q", line)
	}

	root := t.TempDir()
	prefix, state := filepath.Join(root, "prefix"), filepath.Join(root, "state")
	pidFile := filepath.Join(state, "agent.pid")
	setup := filepath.Join(state, "agent.json")
	t.Cleanup(func() { stopByPIDFile(t, pidFile) })

	out, code := runOneLiner(t, line, prefix, state)
	if code != 0 || !strings.Contains(out, "started in the background") || !strings.Contains(out, "installed host "+hostID) {
		t.Fatalf("installer: exit %d, output does not say what it did:\n%s", code, out)
	}
	awaitOnline(t, api, hostID, 10*time.Second)
	checkMode(t, filepath.Join(prefix, "bin", "hostgate-agent"), 0o755)
	checkMode(t, state, 0o700|os.ModeDir)
	checkMode(t, setup, 0o600)
	if b, err := os.ReadFile(filepath.Join(state, "hostgate-agent.service")); err != nil ||
		!strings.Contains(string(b), "ExecStart="+filepath.Join(prefix, "bin", "hostgate-agent")+" run --state-dir "+state) {
		t.Errorf("unit kept for later: %v\n%s", err, b)
	}
	first := readPID(t, pidFile)
	firstKey := setupKey(t, setup)

	// The same line pasted again: the token is spent. It prints how to get
	// a new line and fails, with nothing of the host in it.
	out, code = runOneLiner(t, line, prefix, state)
	if code != 6 || !strings.Contains(out, "already used or has expired") || !strings.Contains(out, "Re-issue install token") ||
		!strings.Contains(out, "hostgate-cli hosts credentials HOST") || !strings.Contains(out, "/v1/api/hosts/{id}/install-token") {
		t.Errorf("second paste: exit %d\n%s", code, out)
	}
	for _, secret := range []string{hostID, created.Credentials.SecretKey, strings.TrimSuffix(strings.TrimPrefix(line, "curl -fsSL "), " | sh")} {
		if strings.Contains(out, secret) {
			t.Errorf("the second paste prints %q", secret)
		}
	}
	if readPID(t, pidFile) != first {
		t.Errorf("the refused paste touched the running agent")
	}

	// A reinstall with fresh credentials replaces the running agent: the
	// host is online again on the new key, and the old key is refused.
	var again struct {
		InstallCommand installCommand `json:"install_command"`
	}
	api.Do("POST", "/v1/api/hosts/"+hostID+"/install-token", nil).Want(t, 200, "").JSON(t, &again)
	if out, code := runOneLiner(t, again.InstallCommand.Shell, prefix, state); code != 0 {
		t.Fatalf("reinstall: exit %d\n%s", code, out)
	}
	second := readPID(t, pidFile)
	if second == first {
		t.Errorf("the reinstall kept pid %d", first)
	}
	if syscall.Kill(first, 0) == nil && !zombie(first) {
		t.Errorf("the first agent (pid %d) still runs after the reinstall", first)
	}
	awaitOnline(t, api, hostID, 10*time.Second)
	secondKey := setupKey(t, setup)
	if secondKey.Equal(firstKey) {
		t.Fatal("the reinstall kept the old key")
	}
	refresh(t, h, hostID, firstKey).Want(t, 401, "")
	refresh(t, h, hostID, secondKey).Want(t, 200, "")
	if syscall.Kill(second, 0) != nil {
		t.Errorf("the new agent (pid %d) is not running", second)
	}

	// Without root, without sudo and without both overrides, the script
	// refuses before it downloads anything.
	api.Do("POST", "/v1/api/hosts/"+hostID+"/install-token", nil).Want(t, 200, "").JSON(t, &again)
	url := strings.TrimSuffix(strings.TrimPrefix(again.InstallCommand.Shell, "curl -fsSL "), " | sh")
	script := h.Client(t).Do("GET", strings.TrimPrefix(url, h.URL), nil).Want(t, 200, "").Body
	cmd := exec.Command("sh", "-s")
	cmd.Stdin = strings.NewReader(string(script))
	cmd.Env = append(os.Environ(), "PATH="+pathWithoutSudo(t), "HOSTGATE_PREFIX="+prefix, "HOSTGATE_STATE_DIR=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Dir = "/"
	refused, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(refused), "needs root and sudo is not installed") {
		t.Errorf("the script as a user without sudo or overrides: %v\n%s", err, refused)
	}
}

// runOneLiner runs the hub's shell line as given (curl -fsSL … | sh) the
// way root would on a machine without sudo, with the install going under
// prefix and state. It returns the output and the exit code.
func runOneLiner(t *testing.T, line, prefix, state string) (string, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Env = append(os.Environ(), "PATH="+pathWithoutSudo(t), "HOSTGATE_PREFIX="+prefix, "HOSTGATE_STATE_DIR="+state)
	if _, err := os.Stat("/run/systemd/system"); err == nil {
		// Never install a real unit from a test.
		cmd.Env = append(cmd.Env, "HOSTGATE_SERVICE=detached")
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", line, err)
	}
	if ee != nil {
		return string(out), ee.ExitCode()
	}
	return string(out), 0
}

// pathWithoutSudo is $PATH without the directories that hold sudo.
func pathWithoutSudo(t *testing.T) string {
	t.Helper()
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "sudo")); err != nil {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// setupKey is the agent's private key from its setup file (plaintext on
// Linux).
func setupKey(t *testing.T, path string) ed25519.PrivateKey {
	t.Helper()
	var s struct {
		Seed string `json:"agent_privkey_seed"`
	}
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &s) != nil {
		t.Fatalf("setup file: %v", err)
	}
	seed, err := base64.StdEncoding.DecodeString(s.Seed)
	if err != nil || len(seed) != ed25519.SeedSize {
		t.Fatalf("setup file seed: %v", err)
	}
	return ed25519.NewKeyFromSeed(seed)
}

// refresh asks the hub for an agent token by the key refresh, signing its
// challenge with key.
func refresh(t *testing.T, h *hubtest.Hub, hostID string, key ed25519.PrivateKey) *hubtest.Response {
	t.Helper()
	var ch agentproto.ChallengeResponse
	h.Client(t).Do("POST", agentproto.PathRefresh, agentproto.RefreshRequest{HostID: hostID}).Want(t, 200, "").JSON(t, &ch)
	sig := ed25519.Sign(key, agentproto.ChallengeMessage(hostID, ch.Challenge))
	return h.Client(t).Do("POST", agentproto.PathRefresh, agentproto.RefreshRequest{
		HostID: hostID, Challenge: ch.Challenge, Signature: base64.StdEncoding.EncodeToString(sig)})
}

func awaitOnline(t *testing.T, api *hubtest.Client, hostID string, within time.Duration) {
	t.Helper()
	eventually.True(t, within, "host "+hostID+" online", func() bool {
		var got struct {
			Online bool `json:"online"`
		}
		api.Do("GET", "/v1/api/hosts/"+hostID, nil).Want(t, 200, "").JSON(t, &got)
		return got.Online
	})
}

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if fi.Mode() != want {
		t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
	}
}

func readPID(t *testing.T, pidFile string) int {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		t.Fatalf("pid file holds %q", b)
	}
	return pid
}

// stopByPIDFile ends the detached agent: SIGTERM, then SIGKILL after 10 s.
func stopByPIDFile(t *testing.T, pidFile string) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	if eventually.Within(10*time.Second, func() bool { return syscall.Kill(pid, 0) != nil || zombie(pid) }) {
		return
	}
	t.Logf("agent pid %d ignored SIGTERM; killing it", pid)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// zombie reports whether pid has exited but not been reaped (a
// container's init may not reap orphans).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}
