package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSDKsAgainstHub runs the Python and TypeScript SDKs' real-hub tests
// (sdk/python/tests/test_hub.py, sdk/typescript/test/integration.test.mjs)
// against a hub process: host lifecycle, error codes and predicates on the
// hub's own answers, and webhook deliveries of both formats verified by
// each SDK's receiver helper. `make test` installs and builds the
// TypeScript SDK first; without python3, node or that build the test skips
// locally and fails under CI.
func TestSDKsAgainstHub(t *testing.T) {
	e := NewEnv(t, false)
	e.env["HOSTGATE_WEBHOOK_ALLOW_PRIVATE"] = "1"
	e.env["HOSTGATE_WEBHOOK_SCHEDULE_SCALE"] = "0.1"
	h := e.StartHub()
	c := NewCustomer(t, h)
	c.Fund(h, 50)
	env := append(os.Environ(), "HOSTGATE_SDK_HUB="+h.URL, "HOSTGATE_SDK_KEY="+c.Key, "HOSTGATE_SDK_RECEIVER_HOST=127.0.0.1")

	t.Run("python", func(t *testing.T) {
		py, err := exec.LookPath("python3")
		if err != nil {
			skipOrFail(t, "python3 is not installed")
		}
		cmd := exec.Command(py, "-m", "unittest", "-v", "tests.test_hub")
		cmd.Dir, cmd.Env = filepath.Join("..", "sdk", "python"), env
		run(t, cmd, "skipped=")
	})
	t.Run("typescript", func(t *testing.T) {
		node, err := exec.LookPath("node")
		if err != nil {
			skipOrFail(t, "node is not installed")
		}
		dir := filepath.Join("..", "sdk", "typescript")
		if _, err := os.Stat(filepath.Join(dir, "dist", "index.js")); err != nil {
			skipOrFail(t, "the TypeScript SDK is not built: run make test (or npm --prefix sdk/typescript ci && npm --prefix sdk/typescript run build)")
		}
		cmd := exec.Command(node, "--test", "test/integration.test.mjs")
		cmd.Dir, cmd.Env = dir, env
		run(t, cmd, "# skipped 1", "# skipped 2", "# skipped 3")
	})
}

// run runs cmd, failing the test when it fails or its output shows any
// of the markers of a skipped test (each SDK skips its real-hub tests when
// the hub's variables are unset, which here would be a silent pass).
func run(t *testing.T, cmd *exec.Cmd, skipped ...string) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	for _, s := range skipped {
		if strings.Contains(string(out), s) {
			t.Fatalf("%s: a real-hub test was skipped (%q in its output)", strings.Join(cmd.Args, " "), s)
		}
	}
}
