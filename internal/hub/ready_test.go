package hub_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"hostgate/internal/eventually"
	"hostgate/internal/hubtest"
	"hostgate/internal/pgtest"
)

// privateRedis runs a redis-server of this test's own on a free port, so
// stopping it disturbs no other test. It returns the port and a function
// that starts it (again).
func privateRedis(t *testing.T) (port int, start func(), stop func()) {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server not installed: %v", err)
		}
		t.Skip("redis-server not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var cmd *exec.Cmd
	start = func() {
		cmd = exec.Command(path, "--bind", "127.0.0.1", "--port", fmt.Sprint(port), "--save", "", "--appendonly", "no", "--dir", t.TempDir())
		if err := cmd.Start(); err != nil {
			t.Fatalf("start redis-server: %v", err)
		}
		eventually.Error(t, 15*time.Second, "redis-server listening", func() error {
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err == nil {
				c.Close()
			}
			return err
		})
	}
	stop = func() {
		if cmd != nil && cmd.Process != nil {
			cmd.Process.Kill()
			cmd.Wait()
			cmd = nil
		}
	}
	t.Cleanup(stop)
	return port, start, stop
}

// TestReadyFollowsRedis stops Redis under a running hub and starts it
// again: /readyz goes 503 naming the failure, then 200, without a restart.
func TestReadyFollowsRedis(t *testing.T) {
	port, start, stop := privateRedis(t)
	start()
	h := hubtest.StartEnv(t, map[string]string{
		"HOSTGATE_ADDR":         "127.0.0.1:0",
		"HOSTGATE_DATA_DIR":     t.TempDir(),
		"HOSTGATE_DATABASE_URL": pgtest.NewDatabase(t),
		"HOSTGATE_REDIS_URL":    fmt.Sprintf("redis://127.0.0.1:%d/0", port),
		"HOSTGATE_LOG_LEVEL":    "error",
	})
	c := h.Client(t)
	type ready struct{ Status, PG, Redis string }
	var r ready
	c.Do("GET", "/readyz", nil).Want(t, 200, "").JSON(t, &r)

	stop()
	resp := c.Do("GET", "/readyz", nil).Want(t, 503, "")
	resp.JSON(t, &r)
	if r.Status != "unavailable" || r.PG != "ok" || r.Redis == "ok" || !strings.Contains(r.Redis, "refused") {
		t.Errorf("with Redis down: %+v, want unavailable, pg ok and redis carrying the failure", r)
	}

	start()
	status := 0
	if !eventually.Within(15*time.Second, func() bool { status = c.Do("GET", "/readyz", nil).Status; return status == 200 }) {
		t.Fatalf("/readyz after Redis is back: %d, want 200 within 15 s", status)
	}
	c.Do("GET", "/readyz", nil).Want(t, 200, "").JSON(t, &r)
	if r.Redis != "ok" {
		t.Errorf("after restart redis = %q, want ok", r.Redis)
	}
}
