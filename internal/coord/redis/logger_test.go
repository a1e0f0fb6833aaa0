package redis_test

import (
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"

	"hostgate/internal/coord/redis"
)

// driverLogChild makes the test binary run one case of
// TestDriverMessagesLeaveStandardError in a process of its own: go-redis's
// logger is process-wide and, once replaced, stays so.
const driverLogChild = "HOSTGATE_TEST_REDIS_DRIVER_LOG"

// TestDriverMessagesLeaveStandardError: go-redis's own messages (here its
// pool's failed dial) never reach standard error, where they would bury
// the hub's report of a Redis outage; opening a Coord sends them to slog's
// default logger at debug level, or to the logger SetLogger names.
func TestDriverMessagesLeaveStandardError(t *testing.T) {
	if mode := os.Getenv(driverLogChild); mode != "" {
		driverLogCase(t, mode)
		return
	}
	for _, mode := range []string{"default", "named"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestDriverMessagesLeaveStandardError$", "-test.v")
			cmd.Env = append(os.Environ(), driverLogChild+"="+mode)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("child: %v\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
			}
			if strings.Contains(stderr.String(), "failed to dial") {
				t.Errorf("go-redis wrote to standard error:\n%s", &stderr)
			}
			want := []string{"level=DEBUG", `msg="redis: `}
			if mode == "named" {
				want = append(want, "logger=named")
			}
			for line := range strings.Lines(stdout.String()) {
				if !strings.Contains(line, "failed to dial") {
					continue
				}
				for _, w := range want {
					if !strings.Contains(line, w) {
						t.Errorf("go-redis's message %q lacks %q", line, w)
					}
				}
				return
			}
			t.Errorf("child's log has no go-redis message:\n%s", &stdout)
		})
	}
}

// driverLogCase logs at debug level to standard output, through slog's
// default logger or a named one, and opens a Coord on a closed port.
func driverLogCase(t *testing.T, mode string) {
	h := slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})
	if mode == "named" {
		slog.SetDefault(slog.New(slog.DiscardHandler))
		redis.SetLogger(slog.New(h).With("logger", "named"))
	} else {
		slog.SetDefault(slog.New(h))
	}
	if _, err := redis.Open(t.Context(), "redis://"+closedAddr(t)+"/0"); err == nil {
		t.Fatal("Open(closed port): got nil error, want one")
	}
}
