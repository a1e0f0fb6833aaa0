//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"hostgate/internal/eventually"
	hostgate "hostgate/sdk/go"
)

var (
	cliOnce sync.Once
	cliBin  string
	cliErr  error
)

// cliBinary builds hostgate-cli once per test run, beside the hub.
func cliBinary(t *testing.T) string {
	t.Helper()
	hub, _ := binaries(t)
	cliOnce.Do(func() {
		cliBin = filepath.Join(filepath.Dir(hub), "hostgate-cli")
		if out, err := exec.Command("go", "build", "-o", cliBin, "hostgate/cmd/hostgate-cli").CombinedOutput(); err != nil {
			cliErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if cliErr != nil {
		t.Fatalf("build hostgate-cli: %v", cliErr)
	}
	return cliBin
}

// cliEnv is the environment of a CLI run: the test's own without any
// HOSTGATE_* variable, plus vars.
func cliEnv(vars ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOSTGATE_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, vars...)
}

type cliResult struct {
	code           int
	stdout, stderr string
}

// runCLI runs hostgate-cli with env and args, stdin not a terminal.
func runCLI(t *testing.T, env []string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cliBinary(t), args...)
	var out, errb bytes.Buffer
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, strings.NewReader(""), &out, &errb
	err := cmd.Run()
	if _, ok := errors.AsType[*exec.ExitError](err); err != nil && !ok {
		t.Fatalf("hostgate-cli %v: %v", args, err)
	}
	r := cliResult{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
	t.Logf("hostgate-cli %s → %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, firstN(r.stdout, 400), r.stderr)
	return r
}

func decodeJSON[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return v
}

// TestCLI drives hostgate-cli against a hub and agent processes: the
// host lifecycle, shell with the remote exit status passed through, read,
// term in a real pseudo-terminal, webhook deliveries, and the 402 and 409
// answers.
func TestCLI(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh") // the agent's terminal shell
	e := NewEnv(t, false)
	e.env["HOSTGATE_WEBHOOK_ALLOW_PRIVATE"] = "1"
	e.env["HOSTGATE_WEBHOOK_SCHEDULE_SCALE"] = "0.1"
	h := e.StartHub()
	c := NewCustomer(t, h)
	c.Fund(h, 50)

	// The key and URL come from the default config file.
	xdg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "hostgate"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]string{"url": h.URL, "api_key": c.Key})
	if err := os.WriteFile(filepath.Join(xdg, "hostgate", "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	env := cliEnv("XDG_CONFIG_HOME=" + xdg)

	r := runCLI(t, env, "--json", "hosts", "create", "cli-host", "--credentials")
	created := decodeJSON[struct {
		Host        hostgate.Host `json:"host"`
		Credentials Credentials   `json:"credentials"`
	}](t, r.stdout)
	if r.code != 0 || r.stderr != "" || created.Host.Name != "cli-host" || created.Credentials.HostID != created.Host.ID {
		t.Fatalf("create: %+v", r)
	}
	id := created.Host.ID
	agent := e.StartAgent(created.Credentials, t.TempDir())
	eventually.True(t, 15*time.Second, "agent connected", func() bool { return c.Connected(h, id) })

	t.Run("hosts", func(t *testing.T) {
		r := runCLI(t, env, "--json", "hosts", "list")
		hosts := decodeJSON[[]hostgate.Host](t, r.stdout)
		if r.code != 0 || len(hosts) != 1 || hosts[0].ID != id || !hosts[0].Online {
			t.Fatalf("list: %+v", hosts)
		}
		r = runCLI(t, env, "hosts", "list")
		if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], id+"  cli-host") {
			t.Fatalf("table:\n%s", r.stdout)
		}
		r = runCLI(t, env, "--json", "hosts", "show", "cli-host")
		if got := decodeJSON[hostgate.Host](t, r.stdout); r.code != 0 || got.ID != id || !got.Online || got.OS == "" {
			t.Fatalf("show by name: %+v", got)
		}
	})

	t.Run("shell", func(t *testing.T) {
		r := runCLI(t, env, "shell", "cli-host", "--", "/bin/sh", "-c", `echo "it's" out; echo err >&2; exit 7`)
		// The remote stderr, then what the command cost (docs/cli.md).
		if r.code != 7 || r.stdout != "it's out\n" || !strings.HasPrefix(r.stderr, "err\nhostgate-cli: charged 5 tokens, balance ") {
			t.Fatalf("shell: %+v", r)
		}
		r = runCLI(t, env, "--json", "shell", id, "--", "/bin/sh", "-c", "echo json; exit 5")
		res := decodeJSON[hostgate.ShellResult](t, r.stdout)
		if r.code != 5 || res.Stdout != "json\n" || res.ExitCode != 5 || res.TimedOut {
			t.Fatalf("shell --json: %+v %+v", r, res)
		}
		r = runCLI(t, env, "shell", id, "--timeout-s", "1", "--", "sleep", "30")
		if r.code != 124 || !strings.Contains(r.stderr, "timed out") {
			t.Fatalf("timeout: %+v", r)
		}
	})

	t.Run("read", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "notes.txt")
		if err := os.WriteFile(p, []byte("line one\nline two\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := runCLI(t, env, "read", id, p); r.code != 0 || r.stdout != "line one\nline two\n" {
			t.Fatalf("read: %+v", r)
		}
		r := runCLI(t, env, "--json", "read", id, p)
		if res := decodeJSON[hostgate.ReadResult](t, r.stdout); res.Content != "line one\nline two\n" || res.Encoding != "utf-8" {
			t.Fatalf("read --json: %+v", res)
		}
	})

	t.Run("term", func(t *testing.T) { cliTerm(t, env, id) })

	t.Run("deliveries", func(t *testing.T) { cliDeliveries(t, env, h, c, id) })

	t.Run("tags, filters and jobs", func(t *testing.T) { cliJobs(t, env, id) })

	t.Run("402 on an empty balance", func(t *testing.T) {
		c.Fund(h, -c.Balance(h))
		r := runCLI(t, env, "--json", "shell", id, "--", "true")
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		// What it cost (nothing; the balance), then the error, its JSON last.
		if r.code != 1 || len(lines) != 3 || lines[0] != `{"charged": 0, "balance": 0}` ||
			!strings.HasSuffix(lines[1], "(402 insufficient_balance)") || !strings.HasPrefix(lines[1], "hostgate-cli: ") {
			t.Fatalf("402: %+v", r)
		}
		if e := decodeJSON[map[string]any](t, lines[2]); e["status"] != 402.0 || e["error"] != "insufficient_balance" || e["message"] == "" {
			t.Fatalf("402 JSON: %v", e)
		}
	})

	t.Run("409 host_offline", func(t *testing.T) {
		agent.Stop()
		eventually.True(t, 15*time.Second, "agent gone", func() bool { return !c.Connected(h, id) })
		r := runCLI(t, env, "read", id, "/etc/hostname")
		if r.code != 1 || !strings.HasSuffix(strings.TrimSpace(r.stderr), "(409 host_offline)") {
			t.Fatalf("409: %+v", r)
		}
	})

	// New credentials replace the running agent's, so they come last.
	t.Run("credentials and delete", func(t *testing.T) {
		r := runCLI(t, env, "--json", "hosts", "credentials", id)
		if cr := decodeJSON[hostgate.Credentials](t, r.stdout); r.code != 0 || cr.InstallToken == "" || cr.SecretKey != cliL1Secret {
			t.Fatalf("credentials: %+v", cr)
		}
		// Flags win over the config file's key.
		flags := []string{"--url", h.URL, "--api-key", c.Key}
		r = runCLI(t, cliEnv("HOSTGATE_API_KEY=ak_wrong.key", "XDG_CONFIG_HOME="+xdg), append(flags, "--json", "hosts", "credentials", id, "--rotate")...)
		if cr := decodeJSON[hostgate.Credentials](t, r.stdout); r.code != 0 || cr.SecretKey == "" || cr.SecretKey == cliL1Secret {
			t.Fatalf("rotate: %+v", r)
		}
		if r := runCLI(t, env, "hosts", "delete", id); r.code != 2 || !strings.Contains(r.stderr, "--yes") {
			t.Fatalf("delete without --yes: %+v", r)
		}
		if r := runCLI(t, env, "hosts", "delete", "cli-host", "--yes"); r.code != 0 {
			t.Fatalf("delete: %+v", r)
		}
		if r := runCLI(t, env, "hosts", "show", id); r.code != 1 || !strings.Contains(r.stderr, "(404 not_found)") {
			t.Fatalf("show deleted: %+v", r)
		}
	})
}

// cliTerm runs `hostgate-cli term` on a pseudo-terminal: it resizes the
// terminal, types commands, and checks the remote shell's exit status and
// the local terminal's mode afterwards.
func cliTerm(t *testing.T, env []string, id string) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 80}); err != nil {
		t.Fatal(err)
	}
	before, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cliBinary(t), "term", id)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	var mu sync.Mutex
	var screen strings.Builder
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	shown := func(s string) func() bool {
		return func() bool { mu.Lock(); defer mu.Unlock(); return strings.Contains(screen.String(), s) }
	}
	// Type only once the CLI has put the terminal in raw mode.
	eventually.True(t, 15*time.Second, "raw mode", func() bool {
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		return err == nil && tio.Lflag&unix.ICANON == 0
	})

	// A resize reaches the remote terminal (SIGWINCH → resize).
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 33, Cols: 101}); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, 15*time.Second, "the new size remotely", func() bool {
		_, _ = ptmx.Write([]byte("stty size\r"))
		return eventually.Within(300*time.Millisecond, shown("33 101")) // this try's answer, before typing again
	})
	if _, err := ptmx.Write([]byte("echo h''i; exit 3\r")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		done <- nil // for the cleanup
	case <-time.After(30 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("term did not end; screen %q", screen.String())
	}
	// The shell's last line. Not "\nhi": a line typed before the shell
	// printed its prompt is echoed by the remote terminal at once, so the
	// screen can read "exit 3\r\n# hi\r\n" (the prompt, then the output).
	if !eventually.Within(5*time.Second, shown("hi\r\n")) {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the last output is missing; screen %q", screen.String())
	}
	if cmd.ProcessState.ExitCode() != 3 {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("exit %d; screen %q", cmd.ProcessState.ExitCode(), screen.String())
	}
	after, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if after.Lflag != before.Lflag || after.Iflag != before.Iflag || after.Oflag != before.Oflag {
		t.Fatalf("terminal not restored: lflag %#x→%#x iflag %#x→%#x", before.Lflag, after.Lflag, before.Iflag, after.Iflag)
	}
}

// cliL1Secret is the secret key cliDeliveries sets; the install
// credentials keep it.
const cliL1Secret = "00112233445566778899aabbccddeeff"

// cliDeliveries queues a webhook whose attempts fail until `deliveries
// --follow` has shown it undelivered, and watches it until it is delivered.
func cliDeliveries(t *testing.T, env []string, h *Hub, c Customer, id string) {
	var release atomic.Bool
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !release.Load() {
			http.Error(w, "not yet", http.StatusServiceUnavailable)
		}
	}))
	defer recv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	put, err := hostgate.New(h.URL, c.Key).PutL1Config(ctx, id, hostgate.L1Config{BID: 4243, SecretKey: cliL1Secret, URL: recv.URL})
	if err != nil || put.DeliveryID == "" {
		t.Fatalf("l1 config: %+v %v", put, err)
	}

	cmd := exec.Command(cliBinary(t), "--json", "deliveries", id, "--follow", "--interval", "200ms")
	cmd.Env = env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	lines := make(chan hostgate.WebhookDelivery)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var d hostgate.WebhookDelivery
			if json.Unmarshal(sc.Bytes(), &d) != nil {
				t.Errorf("not a JSON line: %q", sc.Text())
				return
			}
			lines <- d
		}
	}()
	var seen []string
	deadline := time.After(45 * time.Second)
	for len(seen) == 0 || seen[len(seen)-1] != "success" {
		select {
		case d, ok := <-lines:
			if !ok {
				t.Fatalf("follow ended: %v; stderr %s", seen, errb.String())
			}
			if d.ID == put.DeliveryID {
				seen = append(seen, d.Status)
				if d.Status != "success" {
					release.Store(true)
				}
			}
		case <-deadline:
			t.Fatalf("not delivered: %v", seen)
		}
	}
	if len(seen) < 2 {
		t.Fatalf("follow printed only %v: no change of status seen", seen)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("follow after SIGINT: %v; stderr %s", err, errb.String())
	}

	r := runCLI(t, env, "--json", "deliveries", id, "--limit", "5")
	rows := decodeJSON[[]hostgate.WebhookDelivery](t, r.stdout)
	if r.code != 0 || len(rows) == 0 || rows[0].ID != put.DeliveryID || rows[0].Status != "success" || rows[0].Attempts < 2 {
		t.Fatalf("deliveries: %+v", rows)
	}
}

// cliJobs tags the host, finds it by tag and by a saved filter, runs a
// job on the filter with --follow (exit 0: the one host succeeded) and
// reads its results and output.
func cliJobs(t *testing.T, env []string, id string) {
	if r := runCLI(t, env, "tags", "set", "cli-host", "env=e2e", "role"); r.code != 0 || r.stdout != id+" env=e2e role=\n" {
		t.Fatalf("tags set: %+v", r)
	}
	r := runCLI(t, env, "--json", "hosts", "list", "--tag", "env=e2e", "--tag", "role")
	if hosts := decodeJSON[[]hostgate.Host](t, r.stdout); r.code != 0 || len(hosts) != 1 || hosts[0].ID != id || hosts[0].Tags["env"] != "e2e" {
		t.Fatalf("hosts list --tag: %+v", r)
	}
	if r := runCLI(t, env, "--json", "hosts", "list", "--tag", "env=other"); r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("hosts list --tag env=other: %+v", r)
	}
	if r := runCLI(t, env, "filters", "create", "e2e-hosts", "--tag", "env=e2e"); r.code != 0 {
		t.Fatalf("filters create: %+v", r)
	}
	d := decodeJSON[hostgate.JobDryRun](t, runCLI(t, env, "--json", "jobs", "run", "--filter", "e2e-hosts", "--dry-run", "--", "uname").stdout)
	if d.HostCount != 1 || len(d.HostIDs) != 1 || d.HostIDs[0] != id {
		t.Fatalf("dry run: %+v", d)
	}
	r = runCLI(t, env, "jobs", "run", "--filter", "e2e-hosts", "--name", "e2e", "--follow", "--interval", "200ms", "--", "/bin/sh", "-c", "echo job-out; echo job-err >&2")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.Contains(lines[1], "cli-host") || !strings.Contains(lines[1], "succeeded") ||
		!strings.Contains(lines[1], "job-out") || !strings.Contains(r.stderr, "finished 1/1 done: 1 succeeded") {
		t.Fatalf("jobs run --follow: %+v", r)
	}
	page := decodeJSON[hostgate.Page[hostgate.Job]](t, runCLI(t, env, "--json", "jobs", "list", "--state", "finished").stdout)
	if len(page.Items) != 1 || page.Items[0].Name != "e2e" || !page.Items[0].Succeeded() {
		t.Fatalf("jobs list: %+v", page)
	}
	job := page.Items[0].ID
	results := decodeJSON[[]hostgate.JobResult](t, runCLI(t, env, "--json", "jobs", "results", job).stdout)
	if len(results) != 1 || results[0].HostID != id || results[0].ExitCode == nil || *results[0].ExitCode != 0 || results[0].Stdout != "job-out\n" {
		t.Fatalf("jobs results: %+v", results)
	}
	if r := runCLI(t, env, "jobs", "output", job, "cli-host"); r.code != 0 || r.stdout != "job-out\n" || !strings.HasPrefix(r.stderr, "job-err\n") {
		t.Fatalf("jobs output: %+v", r)
	}
	if r := runCLI(t, env, "jobs", "cancel", job); r.code != 1 || !strings.Contains(r.stderr, "(409 job_finished)") {
		t.Fatalf("cancel a finished job: %+v", r)
	}
	// A one-off schedule on the filter fires (the firing loop scans every
	// 5 s) and starts a job.
	at := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339)
	sc := decodeJSON[hostgate.Schedule](t, runCLI(t, env, "--json", "schedules", "create", "e2e-once", "--at", at,
		"--filter", "e2e-hosts", "--", "/bin/sh", "-c", "echo scheduled").stdout)
	if sc.ID == "" || sc.NextRunAt == nil || sc.Job.Target.FilterID == "" {
		t.Fatalf("schedules create: %+v", sc)
	}
	var runs hostgate.Page[hostgate.ScheduleRun]
	eventually.True(t, 30*time.Second, "the schedule's run", func() bool {
		runs = decodeJSON[hostgate.Page[hostgate.ScheduleRun]](t, runCLI(t, env, "--json", "schedules", "runs", sc.ID).stdout)
		return len(runs.Items) == 1
	})
	if runs.Items[0].JobID == nil || runs.Items[0].Error != "" {
		t.Fatalf("schedule run: %+v", runs.Items[0])
	}
	if r := runCLI(t, env, "jobs", "wait", *runs.Items[0].JobID, "--interval", "200ms"); r.code != 0 || !strings.Contains(r.stdout, "scheduled") {
		t.Fatalf("the scheduled job: %+v", r)
	}
	list := decodeJSON[[]hostgate.Schedule](t, runCLI(t, env, "--json", "schedules", "list").stdout)
	if len(list) != 1 || !list[0].Paused || list[0].LastJobID == nil {
		t.Fatalf("schedules list after a one-off fired: %+v", list)
	}
	if r := runCLI(t, env, "schedules", "delete", sc.ID); r.code != 0 {
		t.Fatalf("schedules delete: %+v", r)
	}
	if r := runCLI(t, env, "filters", "delete", "e2e-hosts"); r.code != 0 {
		t.Fatalf("filters delete: %+v", r)
	}
	if r := runCLI(t, env, "webhook-secret", "rotate"); r.code != 0 || !strings.HasPrefix(r.stdout, "whsec_") {
		t.Fatalf("webhook-secret rotate: %+v", r)
	}
}
