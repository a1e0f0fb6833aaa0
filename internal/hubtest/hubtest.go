// Package hubtest starts real hubs for tests: in-process, listening on
// 127.0.0.1, on either storage mode, with a fresh database and key space
// each, and closed when the test ends. Run repeats a test body over both
// modes, as net/http's tests repeat theirs over HTTP/1 and HTTP/2.
package hubtest

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/admin"
	"hostgate/internal/hub"
	"hostgate/internal/pgtest"
	"hostgate/internal/redistest"
)

// Mode is a storage and coordination pairing.
type Mode string

// The modes every HTTP-level test runs in.
const (
	Embedded Mode = "embedded" // SQLite + in-process coordination
	Scaled   Mode = "pg+redis" // PostgreSQL + Redis
)

// Modes lists both modes.
var Modes = []Mode{Embedded, Scaled}

// Run runs f once per mode as parallel subtests.
func Run(t *testing.T, f func(t *testing.T, mode Mode)) {
	t.Helper()
	for _, m := range Modes {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			f(t, m)
		})
	}
}

// Hub is a running hub.
type Hub struct {
	*hub.Hub
	URL    string
	Config hub.Config
	Env    map[string]string
	stop   func()
}

// Stop stops the hub now (its listener, background work and stores),
// as a process exit would; the test's cleanup then does nothing more.
func (h *Hub) Stop() { h.stop() }

// Restart stops h and starts a new hub on the same environment (same data
// directory, database and coordination) and the same address, so that its
// agents reconnect to it as they would to a restarted process. For tests
// of what must survive a restart.
func (h *Hub) Restart(t testing.TB) *Hub {
	t.Helper()
	return h.RestartWith(t, nil)
}

// RestartWith is Restart with between run while no instance is up (to
// flush coordination, say, as a Redis restart without persistence would).
func (h *Hub) RestartWith(t testing.TB, between func()) *Hub {
	t.Helper()
	h.Stop()
	if between != nil {
		between()
	}
	env := maps.Clone(h.Env)
	env["HOSTGATE_ADDR"] = strings.TrimPrefix(h.URL, "http://")
	return StartEnv(t, env)
}

// FlushCoordination empties the hub's coordination as a Redis restart
// without persistence would (every key under the hub's prefix). h must be
// Scaled.
func (h *Hub) FlushCoordination(t testing.TB) {
	t.Helper()
	prefix := h.Env["HOSTGATE_REDIS_PREFIX"]
	if prefix == "" {
		t.Fatalf("hubtest: FlushCoordination needs a Scaled hub")
	}
	redistest.Flush(t, prefix)
}

// Option changes the environment a hub starts with.
type Option func(env map[string]string)

// WithEnv sets one environment variable.
func WithEnv(name, value string) Option { return func(env map[string]string) { env[name] = value } }

// WithTerminalTicketTTL makes the hub's terminal tickets expire after d
// instead of terminals.TicketTTL, for tests that see a ticket expire.
// Restarts and siblings keep it.
func WithTerminalTicketTTL(d time.Duration) Option {
	return func(env map[string]string) { env[ticketTTLKey] = d.String() }
}

// ticketTTLKey carries WithTerminalTicketTTL in the environment map: it is
// no environment variable of the hub's, and StartEnv moves it into the
// hub's Config (hub.Config.TerminalTicketTTL).
const ticketTTLKey = "hubtest.terminal_ticket_ttl"

// Env returns the environment Start would use for mode, for tests that
// start hubs themselves (a second instance on the same stores, say).
func Env(t testing.TB, mode Mode, opts ...Option) map[string]string {
	t.Helper()
	env := map[string]string{
		"HOSTGATE_ADDR":      "127.0.0.1:0",
		"HOSTGATE_DATA_DIR":  t.TempDir(),
		"HOSTGATE_LOG_LEVEL": "warn",
		// No agent downloads, whatever `make build` embedded: tests that
		// want some set their own directory.
		"HOSTGATE_AGENT_DIR": t.TempDir(),
	}
	if mode == Scaled {
		env["HOSTGATE_DATABASE_URL"] = pgtest.NewDatabase(t)
		env["HOSTGATE_REDIS_URL"] = redistest.URL(t)
		env["HOSTGATE_REDIS_PREFIX"] = redistest.Prefix(t)
	}
	for _, o := range opts {
		o(env)
	}
	return env
}

// Start runs a hub in mode until the test ends.
func Start(t testing.TB, mode Mode, opts ...Option) *Hub {
	t.Helper()
	return StartEnv(t, Env(t, mode, opts...))
}

// StartSibling runs a second instance of h's cluster (same database,
// coordination and keys; its own address and data directory) until the
// test ends. h must be Scaled.
func (h *Hub) StartSibling(t testing.TB) *Hub {
	t.Helper()
	env := maps.Clone(h.Env)
	env["HOSTGATE_ADDR"], env["HOSTGATE_DATA_DIR"] = "127.0.0.1:0", t.TempDir()
	delete(env, "HOSTGATE_PUBLIC_URL")
	return StartEnv(t, env)
}

// TestRateLimits are the abuse limits (HOSTGATE_RATE_*) every test hub
// starts with unless its environment sets them: the tests register and
// sign in many accounts from 127.0.0.1, which the production defaults
// would refuse. The limits stay on, at numbers no test reaches; the
// tests of the limits set their own (WithEnv).
var TestRateLimits = map[string]string{
	"HOSTGATE_RATE_LOGIN":    "1000000/1000000",
	"HOSTGATE_RATE_REGISTER": "1000000/1000000",
	"HOSTGATE_RATE_REFRESH":  "1000000",
	"HOSTGATE_RATE_TICKET":   "1000000/1000000",
	"HOSTGATE_RATE_NOTIFY":   "1000000",
	"HOSTGATE_RATE_CHECKOUT": "1000000",
}

// StartEnv runs a hub with this environment until the test ends; the
// abuse limits it does not set are TestRateLimits.
func StartEnv(t testing.TB, env map[string]string) *Hub {
	t.Helper()
	for k, v := range TestRateLimits {
		if _, set := env[k]; !set {
			env[k] = v
		}
	}
	ln, err := net.Listen("tcp", env["HOSTGATE_ADDR"])
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	url := "http://" + ln.Addr().String()
	if env["HOSTGATE_PUBLIC_URL"] == "" {
		env["HOSTGATE_PUBLIC_URL"] = url
	}
	cfg, err := hub.Parse(func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	if v, ok := env[ticketTTLKey]; ok {
		if cfg.TerminalTicketTTL, err = time.ParseDuration(v); err != nil {
			t.Fatalf("config: %s: %v", ticketTTLKey, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	h, err := hub.Open(ctx, cfg, Logger(t))
	if err != nil {
		cancel()
		ln.Close()
		t.Fatalf("open hub: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- h.Serve(ctx, ln) }()
	stop := sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		h.Close()
	})
	t.Cleanup(stop)
	return &Hub{Hub: h, URL: url, Config: cfg, Env: env, stop: stop}
}

// Logger logs to the test output when HOSTGATE_TEST_LOG is set, else
// nowhere, so passing runs stay quiet.
func Logger(t testing.TB) *slog.Logger {
	if os.Getenv("HOSTGATE_TEST_LOG") == "" {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func adminRole(r string) admin.Role { return admin.Role(r) }
