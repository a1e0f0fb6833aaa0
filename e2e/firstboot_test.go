//go:build !windows

package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agent/firstboot"
	"hostgate/internal/eventually"
	"hostgate/internal/hosts"
	"hostgate/internal/installer"
)

// TestFirstBootFromTemplate is the acceptance path for template
// images on Linux: a machine whose image carries only the agent
// executable at its path and the first-boot script gets the hub's
// provisioning payload for a new host where the simple variant reads it
// (the local file source), runs the script, and the host comes online.
// The payload appears only after the script has started waiting, so the
// poll is exercised. A second run exits 0 at once (install.done). Then
// payloads over 1 KB, beginning with '#' or without hub.secret_key are
// refused with exit 3 and a clear reason, no payload at all is exit 2, and
// an image without the agent is exit 4.
func TestFirstBootFromTemplate(t *testing.T) {
	_, agentBin := binaries(t)
	env := NewEnv(t, false)
	h := env.StartHub()
	c := NewCustomer(t, h)
	var created struct {
		Credentials hosts.Credentials `json:"credentials"`
	}
	if s := call(t, "POST", h.URL+"/v1/api/hosts", c.Key, map[string]any{"name": "template-1", "with_credentials": true}, &created); s != 201 {
		t.Fatalf("create host: %d", s)
	}
	creds := created.Credentials
	doc, err := json.Marshal(installer.PayloadFor(creds))
	if err != nil {
		t.Fatal(err)
	}

	// The template image: the agent executable at its path, the script.
	root := t.TempDir()
	prefix, state := filepath.Join(root, "prefix"), filepath.Join(root, "state")
	if err := os.MkdirAll(filepath.Join(prefix, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(agentBin, filepath.Join(prefix, "bin", "hostgate-agent")); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "first-boot.sh")
	body, err := firstboot.Scripts.ReadFile("scripts/first-boot.sh")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, body, 0o755); err != nil {
		t.Fatal(err)
	}
	userData := filepath.Join(root, "user-data.json")
	pidFile := filepath.Join(state, "agent.pid")
	t.Cleanup(func() { stopByPIDFile(t, pidFile) })

	firstBoot := func(prefix, state, source string, extra ...string) *exec.Cmd {
		cmd := exec.Command("sh", script)
		cmd.Env = append(os.Environ(), "HOSTGATE_PREFIX="+prefix, "HOSTGATE_STATE_DIR="+state,
			"HOSTGATE_SOURCE=file:"+source, "HOSTGATE_SERVICE=detached", "HOSTGATE_TIMEOUT=60s")
		cmd.Env = append(cmd.Env, extra...)
		return cmd
	}

	// First boot: the script waits; the user data arrives.
	cmd := firstBoot(prefix, state, userData)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	eventually.True(t, 20*time.Second, "first-boot waiting", func() bool { return strings.Contains(out.String(), "waiting up to 1m0s") })
	if err := os.WriteFile(userData, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("first boot: %v\n%s", err, out)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("first boot did not finish\n%s", out)
	}
	for _, secret := range []string{creds.SecretKey, creds.InstallToken, creds.AgentPrivkeySeed} {
		if strings.Contains(out.String(), secret) {
			t.Fatalf("first-boot output shows a secret:\n%s", out)
		}
	}
	if !strings.Contains(out.String(), "installed host "+creds.HostID) {
		t.Errorf("first-boot output does not say what it did:\n%s", out)
	}
	eventually.True(t, 15*time.Second, "host online", func() bool { return c.Connected(h, creds.HostID) })
	if _, err := os.Stat(filepath.Join(state, "install.done")); err != nil {
		t.Errorf("install.done: %v", err)
	}
	pid := readPID(t, pidFile)

	// Later boots: done at once, the running agent left alone.
	again, err := firstBoot(prefix, state, userData).CombinedOutput()
	if err != nil || !strings.Contains(string(again), "already installed") {
		t.Fatalf("second boot: %v\n%s", err, again)
	}
	if readPID(t, pidFile) != pid || !c.Connected(h, creds.HostID) {
		t.Error("the second boot disturbed the running agent")
	}

	// Refused payloads: exit 3 with the reason, nothing installed.
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	noSecret := cloneDoc(t, m)
	delete(noSecret["hub"].(map[string]any), "secret_key")
	big := cloneDoc(t, m)
	big["image"] = map[string]any{"notes": strings.Repeat("n", 1024-len(doc))}
	for _, tc := range []struct {
		name, reason string
		doc          []byte
	}{
		{"over 1 KB", "must be under 1024 bytes", encodeJSON(t, big)},
		{"begins with #", "begins with '#'", append([]byte("#cloud-config\n"), doc...)},
		{"no secret key", "hub.secret_key is missing", encodeJSON(t, noSecret)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "user-data")
			if err := os.WriteFile(file, tc.doc, 0o600); err != nil {
				t.Fatal(err)
			}
			code, out := exitCode(t, firstBoot(prefix, filepath.Join(dir, "state"), file))
			if code != firstboot.ExitConfig || !strings.Contains(out, tc.reason) {
				t.Fatalf("exit %d, want 3 with %q:\n%s", code, tc.reason, out)
			}
			if _, err := os.Stat(filepath.Join(dir, "state", "agent.json")); err == nil {
				t.Error("a setup file was written from a refused payload")
			}
		})
	}
	t.Run("no payload in time", func(t *testing.T) {
		dir := t.TempDir()
		code, out := exitCode(t, firstBoot(prefix, filepath.Join(dir, "state"), filepath.Join(dir, "absent"), "HOSTGATE_TIMEOUT=1s"))
		if code != firstboot.ExitTimeout || !strings.Contains(out, "no provisioning payload appeared") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
	t.Run("image without the agent", func(t *testing.T) {
		dir := t.TempDir()
		code, out := exitCode(t, firstBoot(filepath.Join(dir, "empty-prefix"), filepath.Join(dir, "state"), userData))
		if code != firstboot.ExitNoAgent || !strings.Contains(out, "absent from this image") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
}

func cloneDoc(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(encodeJSON(t, m), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func encodeJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func exitCode(t *testing.T, cmd *exec.Cmd) (int, string) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}
