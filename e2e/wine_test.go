package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hostgate/internal/eventually"
	hostgate "hostgate/sdk/go"
)

// TestWindowsAgentUnderWine runs the Windows build of the agent under
// Wine against a real hub and drives the Windows operations Wine supports
// through the client API: registry, the service control manager,
// cmd.exe, files. .ci/wine/test runs it with HOSTGATE_WINE_EXEC set to
// its Wine wrapper (make test-windows); without Wine it cannot run.
func TestWindowsAgentUnderWine(t *testing.T) {
	wine, exe := windowsAgentUnderWine(t)
	e := NewEnv(t, false)
	h := e.StartHub()
	cust := NewCustomer(t, h)
	cust.Fund(h, 100)
	creds := cust.CreateHost(h, "wine")
	state := winPath(t.TempDir())
	start(t, wine, nil, exe, "run", "--host-id", creds.HostID, "--bid", fmt.Sprint(creds.BID),
		"--secret-key", creds.SecretKey, "--install-token", creds.InstallToken,
		"--agent-privkey-seed", creds.AgentPrivkeySeed, "--agent-pubkey", creds.AgentPubkey,
		"--ws-url", creds.WSURL, "--api-endpoint", creds.APIEndpoint, "--state-dir", state)
	eventually.True(t, 60*time.Second, "Windows agent connected", func() bool { return cust.Connected(h, creds.HostID) })

	c, ctx, host := hostgate.New(h.URL, cust.Key), t.Context(), creds.HostID
	info := must[hostgate.SystemInfo](t, "info")(c.SystemInfo(ctx, host))
	if info.OS != "windows" {
		t.Fatalf("info.os = %q, want windows", info.OS)
	}

	key := fmt.Sprintf(`HKCU\Software\hostgate-e2e-%d`, time.Now().UnixNano())
	must[hostgate.RegistryResult](t, "registry write")(c.Registry(ctx, host, key,
		hostgate.RegistryRequest{Action: "write", Name: "greeting", Type: "sz", Value: "你好, hostgate"}))
	r := must[hostgate.RegistryResult](t, "registry read")(c.Registry(ctx, host, key,
		hostgate.RegistryRequest{Action: "read", Name: "greeting"}))
	if r.Value == nil || r.Value.Value != "你好, hostgate" || r.Value.Type != "sz" {
		t.Errorf("registry read: %+v", r.Value)
	}
	must[hostgate.RegistryResult](t, "registry delete")(c.Registry(ctx, host, key,
		hostgate.RegistryRequest{Action: "delete_key", Recursive: true}))
	if _, err := c.Registry(ctx, host, key, hostgate.RegistryRequest{Action: "read", Name: "greeting"}); hostgate.ErrorCode(err) != "target_not_found" {
		t.Errorf("read of a deleted key: %v", err)
	}

	svcs := must[hostgate.ServiceResult](t, "service list")(c.ServiceCtl(ctx, host, "", hostgate.ServiceRequest{Action: "list"}))
	if len(svcs.Services) == 0 {
		t.Error("service list is empty")
	}

	res := must[hostgate.ShellResult](t, "shell")(c.Shell(ctx, host, "cmd.exe", "/c echo hello", 30))
	if strings.TrimSpace(res.Stdout) != "hello" || res.ExitCode != 0 {
		t.Errorf("cmd.exe: %+v", res)
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "from-windows.txt")
	must[hostgate.FileResult](t, "create file")(c.CreateFile(ctx, host, winPath(file), "written by the Windows agent"))
	if b, err := os.ReadFile(file); err != nil || string(b) != "written by the Windows agent" {
		t.Errorf("file written through Wine: %q %v", b, err)
	}
}

// winPath is a Linux path as Wine's Windows programs see it (drive Z:).
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// windowsAgentUnderWine returns the Wine wrapper .ci/wine/test names in
// HOSTGATE_WINE_EXEC and a fresh Windows build of the agent; without the
// wrapper the test is skipped (make test-windows runs it).
func windowsAgentUnderWine(t *testing.T) (wine, exe string) {
	t.Helper()
	wine = os.Getenv("HOSTGATE_WINE_EXEC")
	if wine == "" {
		t.Skip("needs Wine: run by make test-windows (.ci/wine/test sets HOSTGATE_WINE_EXEC to its wrapper)")
	}
	exe = filepath.Join(t.TempDir(), "hostgate-agent.exe")
	build := exec.Command("go", "build", "-o", exe, "hostgate/cmd/hostgate-agent")
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the Windows agent: %v\n%s", err, out)
	}
	return wine, exe
}
