package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

// fakeConsole is a terminal made of a pipe (input) and a buffer (output).
type fakeConsole struct {
	notTTY  bool
	in      *io.PipeReader
	typing  *io.PipeWriter
	mu      sync.Mutex
	out     bytes.Buffer
	raw     bool
	restore int
	resized chan struct{}
	// watched: Resized was called; resizeOnSize: Size reports a resize
	// just after it read the size, which is lost unless watched, as a
	// SIGWINCH nobody asked for is.
	watched, resizeOnSize bool
}

func newFakeConsole() *fakeConsole {
	r, w := io.Pipe()
	return &fakeConsole{in: r, typing: w, resized: make(chan struct{}, 1)}
}

func (c *fakeConsole) IsTerminal() bool { return !c.notTTY }
func (c *fakeConsole) In() io.Reader    { return c.in }
func (c *fakeConsole) Out() io.Writer   { return c }
func (c *fakeConsole) Size() (cols, rows int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.resizeOnSize && c.watched {
		c.resizeOnSize = false
		c.resized <- struct{}{}
	}
	return 120, 40, nil
}
func (c *fakeConsole) Resized(ctx context.Context) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watched = true
	return c.resized
}
func (c *fakeConsole) MakeRaw() (func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.raw = true
	return func() { c.mu.Lock(); c.raw = false; c.restore++; c.mu.Unlock() }, nil
}
func (c *fakeConsole) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(p)
}
func (c *fakeConsole) output() string { c.mu.Lock(); defer c.mu.Unlock(); return c.out.String() }

func (f *fakeHub) termCLI(t *testing.T, con *fakeConsole) <-chan result {
	e, out, errb := testEnv(map[string]string{"HOSTGATE_URL": f.srv.URL, "HOSTGATE_API_KEY": testKey}, "")
	e.console = con
	done := make(chan result, 1)
	go func() { done <- runEnv(t, e, out, errb, "term", hostName) }()
	return done
}

func waitResult(t *testing.T, done <-chan result) result {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("term did not end")
	}
	return result{}
}

func TestCLITermExitStatus(t *testing.T) {
	f := newFakeHub(t)
	con := newFakeConsole()
	done := f.termCLI(t, con)
	if _, err := con.typing.Write([]byte("echo hi; exit 3\r")); err != nil {
		t.Fatal(err)
	}
	con.resized <- struct{}{}
	f.termOut <- "hi\r\n"
	code := 3
	f.mu.Lock()
	f.termEnd = &code
	f.mu.Unlock()
	eventually.True(t, 10*time.Second, "one resize and the typed input at the hub", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.resizes) == 1 && f.termIn.Len() > 0
	})
	close(f.termOut)
	r := waitResult(t, done)
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.code != 3 || con.output() != "hi\r\n" || f.termIn.String() != "echo hi; exit 3\r" {
		t.Fatalf("exit %d output %q input %q stderr %q", r.code, con.output(), f.termIn.String(), r.stderr)
	}
	if con.raw || con.restore != 1 {
		t.Fatalf("terminal not restored once: raw %v restores %d", con.raw, con.restore)
	}
	if f.resizes[0] != `{"cols":120,"rows":40}` || f.closed {
		t.Fatalf("resizes %v closed %v", f.resizes, f.closed)
	}
}

// TestCLITermKeepsAResizeDuringItsStart: a resize between term's start
// and its first look at the size reaches the hub. It was lost when the
// resizes were watched only after the session opened (SIGWINCH is ignored
// until then): e2e TestCLI/term then waited in vain for the new size.
func TestCLITermKeepsAResizeDuringItsStart(t *testing.T) {
	f := newFakeHub(t)
	con := newFakeConsole()
	con.resizeOnSize = true
	done := f.termCLI(t, con)
	eventually.True(t, 10*time.Second, "the resize at the hub", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.resizes) == 1
	})
	code := 0
	f.mu.Lock()
	f.termEnd = &code
	f.mu.Unlock()
	close(f.termOut)
	if r := waitResult(t, done); r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.resizes[0] != `{"cols":120,"rows":40}` {
		t.Fatalf("resizes %v", f.resizes)
	}
}

func TestCLITermDetach(t *testing.T) {
	f := newFakeHub(t)
	con := newFakeConsole()
	done := f.termCLI(t, con)
	if _, err := con.typing.Write([]byte("ls\x1dignored")); err != nil {
		t.Fatal(err)
	}
	r := waitResult(t, done)
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.code != 0 || f.termIn.String() != "ls" || !f.closed || con.restore != 1 {
		t.Fatalf("exit %d input %q closed %v restores %d", r.code, f.termIn.String(), f.closed, con.restore)
	}
}

func TestCLITermInterrupted(t *testing.T) {
	f := newFakeHub(t)
	con := newFakeConsole()
	e, out, errb := testEnv(map[string]string{"HOSTGATE_URL": f.srv.URL, "HOSTGATE_API_KEY": testKey}, "")
	e.console = con
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"term", hostID}, e) }()
	eventually.True(t, 10*time.Second, "a terminal read", func() bool { return f.called("POST /v1/api/hosts/" + hostID + "/shell/session/s1/read") })
	cancel()
	select {
	case code := <-done:
		f.mu.Lock()
		defer f.mu.Unlock()
		if code != exitInterrupted || !f.closed || con.restore != 1 {
			t.Fatalf("exit %d closed %v restores %d stderr %q", code, f.closed, con.restore, errb)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("term did not end")
	}
	_ = out
}

func TestCLIDeliveries(t *testing.T) {
	f := newFakeHub(t)
	d1 := map[string]any{"id": "d1", "event_type": "l1_config", "format": "A", "status": "retrying", "attempts": 1, "target_url": "http://r",
		"http_status": 500, "created_at": "2026-01-02T03:04:05Z"}
	d1ok := map[string]any{"id": "d1", "event_type": "l1_config", "format": "A", "status": "success", "attempts": 2, "target_url": "http://r",
		"http_status": 200, "created_at": "2026-01-02T03:04:05Z"}
	d0 := map[string]any{"id": "d0", "event_type": "host_online", "format": "B", "status": "success", "attempts": 1, "target_url": "http://r",
		"created_at": "2026-01-02T03:00:00Z"}
	f.set(func() { f.histories = [][]map[string]any{{d1, d0}} })
	r := f.cli(t, "deliveries", hostName, "--limit", "10")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[1], "d1 ") || !strings.Contains(lines[1], "500") || !f.called("limit=10") {
		t.Fatalf("table: %d\n%s", r.code, r.stdout)
	}

	f.set(func() { f.histories = [][]map[string]any{{d1, d0}, {d1, d0}, {d1ok, d0}} })
	e, out, errb := testEnv(map[string]string{"HOSTGATE_URL": f.srv.URL, "HOSTGATE_API_KEY": testKey}, "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var mu sync.Mutex
	lw := &lockedWriter{mu: &mu, w: out}
	e.stdout = lw
	go func() {
		done <- run(ctx, []string{"--json", "deliveries", hostID, "--follow", "--interval", "20ms"}, e)
	}()
	eventually.True(t, 10*time.Second, "three delivery lines", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Count(out.String(), "\n") >= 3
	})
	// No further lines while nothing changes: two more polls prove the CLI
	// has handled at least one unchanged history (it polls one at a time).
	polls := func() (n int) {
		f.set(func() {
			for _, c := range f.calls {
				if strings.HasPrefix(c, "limit=") {
					n++
				}
			}
		})
		return n
	}
	seen := polls()
	eventually.True(t, 10*time.Second, "two more polls", func() bool { return polls() >= seen+2 })
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("follow ended with %d: %s", code, errb)
	}
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var d map[string]any
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		got = append(got, d["id"].(string)+"/"+d["status"].(string))
	}
	if strings.Join(got, " ") != "d0/success d1/retrying d1/success" {
		t.Fatalf("follow printed %v", got)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestCLIBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	complete := func(words ...string) string {
		script := bashCompletion + `
COMP_WORDS=(` + strings.Join(words, " ") + `)
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_hostgate_cli
echo "${COMPREPLY[*]}"`
		out, err := exec.Command(bash, "-c", script).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"hostgate-cli", "h"}, "hosts help"},
		{[]string{"hostgate-cli", "--url", "http://x", "hosts", "c"}, "create credentials"},
		{[]string{"hostgate-cli", "hosts", "create", "n", "--"}, "--listen-port --credentials"},
		{[]string{"hostgate-cli", "--json", "deliveries", "h", "--f"}, "--follow"},
		{[]string{"hostgate-cli", "completion", "''"}, "bash zsh fish"},
	} {
		if got := complete(c.words...); got != c.want {
			t.Errorf("%v: %q, want %q", c.words, got, c.want)
		}
	}
}

func TestCLITermSplitCharacter(t *testing.T) {
	for _, c := range []struct{ in, complete, rest string }{
		{"abc", "abc", ""},
		{"a\xe4\xbd", "a", "\xe4\xbd"}, // 你 without its last byte
		{"a\xe4\xbd\xa0", "a\xe4\xbd\xa0", ""},
		{"\xf0\x9f", "", "\xf0\x9f"},
		{"a\xff", "a\xff", ""}, // not UTF-8 at all: sent as it is
	} {
		complete, rest := splitIncomplete([]byte(c.in))
		if string(complete) != c.complete || string(rest) != c.rest {
			t.Errorf("%q: %q + %q, want %q + %q", c.in, complete, rest, c.complete, c.rest)
		}
	}
	// Through the loop: the character arrives whole.
	f := newFakeHub(t)
	con := newFakeConsole()
	done := f.termCLI(t, con)
	for _, part := range []string{"echo \xe4", "\xbd\xa0\r"} {
		if _, err := con.typing.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	var in string
	if !eventually.Within(10*time.Second, func() bool { f.mu.Lock(); defer f.mu.Unlock(); in = f.termIn.String(); return in == "echo 你\r" }) {
		t.Fatalf("the hub got %q, want %q", in, "echo 你\r")
	}
	if _, err := con.typing.Write([]byte{detachKey}); err != nil {
		t.Fatal(err)
	}
	if r := waitResult(t, done); r.code != 0 {
		t.Fatalf("exit %d", r.code)
	}
}
