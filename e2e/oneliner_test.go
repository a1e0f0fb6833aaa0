//go:build !windows

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hostgate/internal/hubtest"
)

// TestLinuxOneLineInstall is the acceptance path: the real agent
// binary, served through the hub's agent lookup, installed by the shell
// one-liner the hub hands out (curl … | sh, as root would run it), and
// the host online within 10 s. The prefix and state directory are
// temporary. Without systemd (as on this machine) the install starts the
// agent detached, and the test stops it through its pid file. A second
// one-liner (a reinstall with new credentials) replaces the running agent.
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
			InstallCommand installCommand `json:"install_command"`
		} `json:"credentials"`
	}
	api.Do("POST", "/v1/api/hosts", map[string]any{"name": "linux-1", "with_credentials": true}).Want(t, 201, "").JSON(t, &created)
	hostID := created.Host.ID

	root := t.TempDir()
	prefix, state := filepath.Join(root, "prefix"), filepath.Join(root, "state")
	pidFile := filepath.Join(state, "agent.pid")
	t.Cleanup(func() { stopByPIDFile(t, pidFile) })

	out := runOneLiner(t, created.Credentials.InstallCommand.Shell, prefix, state)
	if !strings.Contains(out, "started in the background") || !strings.Contains(out, "installed host "+hostID) {
		t.Errorf("installer output does not say what it did:\n%s", out)
	}
	awaitOnline(t, api, hostID, 10*time.Second)
	checkMode(t, filepath.Join(prefix, "bin", "hostgate-agent"), 0o755)
	checkMode(t, state, 0o700|os.ModeDir)
	checkMode(t, filepath.Join(state, "agent.json"), 0o600)
	if b, err := os.ReadFile(filepath.Join(state, "hostgate-agent.service")); err != nil ||
		!strings.Contains(string(b), "ExecStart="+filepath.Join(prefix, "bin", "hostgate-agent")+" run --state-dir "+state) {
		t.Errorf("unit kept for later: %v\n%s", err, b)
	}
	first := readPID(t, pidFile)

	// A reinstall with fresh credentials replaces the running agent.
	var again struct {
		InstallCommand installCommand `json:"install_command"`
	}
	api.Do("POST", "/v1/api/hosts/"+hostID+"/install-token", nil).Want(t, 200, "").JSON(t, &again)
	runOneLiner(t, again.InstallCommand.Shell, prefix, state)
	if second := readPID(t, pidFile); second == first {
		t.Errorf("the reinstall kept pid %d", first)
	}
	if syscall.Kill(first, 0) == nil && !zombie(first) {
		t.Errorf("the first agent (pid %d) still runs after the reinstall", first)
	}
	awaitOnline(t, api, hostID, 10*time.Second)

	// Without root and without both overrides, the script refuses before
	// it downloads anything.
	api.Do("POST", "/v1/api/hosts/"+hostID+"/install-token", nil).Want(t, 200, "").JSON(t, &again)
	url := strings.TrimSuffix(strings.TrimPrefix(again.InstallCommand.Shell, "curl -fsSL "), " | sudo sh")
	script := h.Client(t).Do("GET", strings.TrimPrefix(url, h.URL), nil).Want(t, 200, "").Body
	cmd := exec.Command("sh", "-s")
	cmd.Stdin = strings.NewReader(string(script))
	cmd.Env = append(os.Environ(), "HOSTGATE_PREFIX="+prefix, "HOSTGATE_STATE_DIR=")
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Dir = "/"
	}
	refused, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(refused), "run as root") {
		t.Errorf("the script as a user without overrides: %v\n%s", err, refused)
	}
}

// runOneLiner runs the hub's shell line as root would (without sudo),
// with the install going under prefix and state.
func runOneLiner(t *testing.T, line, prefix, state string) string {
	t.Helper()
	line, ok := strings.CutSuffix(line, " | sudo sh")
	if !ok || !strings.HasPrefix(line, "curl -fsSL ") {
		t.Fatalf("install_command.shell = %q", line)
	}
	cmd := exec.Command("sh", "-c", line+" | sh")
	cmd.Env = append(os.Environ(), "HOSTGATE_PREFIX="+prefix, "HOSTGATE_STATE_DIR="+state)
	if _, err := os.Stat("/run/systemd/system"); err == nil {
		// Never install a real unit from a test.
		cmd.Env = append(cmd.Env, "HOSTGATE_SERVICE=detached")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s | sh: %v\n%s", line, err, out)
	}
	return string(out)
}

func awaitOnline(t *testing.T, api *hubtest.Client, hostID string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var got struct {
			Online bool `json:"online"`
		}
		api.Do("GET", "/v1/api/hosts/"+hostID, nil).Want(t, 200, "").JSON(t, &got)
		if got.Online {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("host %s not online within %v", hostID, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
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
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil || zombie(pid) {
			return
		}
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
