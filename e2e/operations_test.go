//go:build linux

package e2e

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"hostgate/internal/eventually"
	hostgate "hostgate/sdk/go"
)

// onlineHost starts a hub, a customer with a funded balance and a host
// whose real agent is connected, and returns the SDK client for it.
func onlineHost(t *testing.T, scaled bool, tokens float64) (*Hub, Customer, *hostgate.Client, string) {
	t.Helper()
	e := NewEnv(t, scaled)
	h := e.StartHub()
	cust := NewCustomer(t, h)
	creds := cust.CreateHost(h, "ops")
	e.StartAgent(creds, t.TempDir())
	eventually.True(t, 10*time.Second, "agent connected", func() bool { return cust.Connected(h, creds.HostID) })
	if tokens > 0 {
		cust.Fund(h, tokens)
	}
	return h, cust, hostgate.New(h.URL, cust.Key), creds.HostID
}

// TestFileOperations drives every file operation through the client API
// and a real agent, and checks the charges.
func TestFileOperations(t *testing.T) {
	h, cust, c, host := onlineHost(t, false, 100)
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "work", "deep")

	if r := must[hostgate.FileResult](t, "mkdir")(c.MakeDir(ctx, host, dir)); !r.Changed {
		t.Errorf("mkdir: %+v", r)
	}
	file := filepath.Join(dir, "notes.txt")
	must[hostgate.FileResult](t, "create")(c.CreateFile(ctx, host, file, "alpha\n"))
	must[hostgate.FileResult](t, "append")(c.AppendString(ctx, host, file, "beta\nalpha\n"))
	if r := must[hostgate.ReadResult](t, "read")(c.ReadString(ctx, host, file)); r.Content != "alpha\nbeta\nalpha\n" || r.Encoding != "utf-8" {
		t.Errorf("read: %+v", r)
	}
	if r := must[hostgate.RemoveStringResult](t, "remove string")(c.RemoveString(ctx, host, file, "alpha\n")); r.Removed != 2 {
		t.Errorf("remove string: %+v", r)
	}
	if b, _ := os.ReadFile(file); string(b) != "beta\n" {
		t.Errorf("file after remove string: %q", b)
	}
	must[hostgate.FileResult](t, "remove file")(c.RemoveFile(ctx, host, file))
	if _, err := c.ReadString(ctx, host, file); hostgate.ErrorCode(err) != "target_not_found" {
		t.Errorf("read of a removed file: %v, want target_not_found", err)
	}

	// Unzip, and a zip whose entry escapes: refused, nothing written.
	base := t.TempDir()
	good := writeZip(t, filepath.Join(base, "good.zip"), map[string]string{"a.txt": "A", "sub/b.txt": "B"})
	target := filepath.Join(base, "out")
	if r := must[hostgate.UnzipResult](t, "unzip")(c.Unzip(ctx, host, good, target)); r.Files != 2 {
		t.Errorf("unzip: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(target, "sub", "b.txt")); string(b) != "B" {
		t.Errorf("unzipped content %q", b)
	}
	evil := writeZip(t, filepath.Join(base, "evil.zip"), map[string]string{"ok.txt": "fine", "../../escape": "x"})
	inner := filepath.Join(base, "a", "b", "target")
	if _, err := c.Unzip(ctx, host, evil, inner); hostgate.ErrorCode(err) != "unsafe_zip_entry" {
		t.Fatalf("evil zip: %v, want unsafe_zip_entry", err)
	}
	if _, err := os.Stat(filepath.Join(base, "escape")); !os.IsNotExist(err) {
		t.Errorf("the escaping entry was written: %v", err)
	}
	if _, err := os.Stat(filepath.Join(inner, "ok.txt")); !os.IsNotExist(err) {
		t.Errorf("a refused archive wrote its safe entries: %v", err)
	}

	// Download from a local server, with the SHA-256 reported.
	payload := strings.Repeat("hostgate ", 1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(payload)) }))
	defer srv.Close()
	dst := filepath.Join(base, "dl", "file.bin")
	sum := sha256.Sum256([]byte(payload))
	r := must[hostgate.DownloadResult](t, "download")(c.Download(ctx, host, dst, hostgate.DownloadOptions{URL: srv.URL}))
	if r.SHA256 != hex.EncodeToString(sum[:]) || r.Bytes != int64(len(payload)) {
		t.Errorf("download: %+v", r)
	}
	must[hostgate.FileResult](t, "rmdir")(c.RemoveDir(ctx, host, filepath.Join(base, "out")))

	// Charges: dir 1 ×2, writes 1 ×4 (create, append, remove string,
	// remove file), reads 0.5 ×2, zip 2 ×2 (the refused archive too: a
	// failed operation is not refunded), download 2: 13 tokens.
	if got := cust.Balance(h); got != 87 {
		t.Errorf("balance %v after the file operations, want 87", got)
	}
}

func writeZip(t *testing.T, path string, files map[string]string) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, content := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

// TestProcessAndSystemOperations: exec, shell (with a timed-out process
// tree), kill, list, info, metrics, and the Windows-only routes' answer
// on Linux.
func TestProcessAndSystemOperations(t *testing.T) {
	_, _, c, host := onlineHost(t, false, 1000)
	ctx := t.Context()

	res := must[hostgate.ShellResult](t, "shell")(c.Shell(ctx, host, "/bin/sh", `-c 'echo out; echo err >&2; exit 3'`, 10))
	if res.Stdout != "out\n" || res.Stderr != "err\n" || res.ExitCode != 3 || res.TimedOut {
		t.Errorf("shell: %+v", res)
	}

	// A tree of children and grandchildren outliving the timeout.
	pidFile := filepath.Join(t.TempDir(), "pids")
	script := `-c 'sleep 300 & echo $! >> ` + pidFile + `; (sleep 300 & echo $! >> ` + pidFile + `; wait) & sleep 300'`
	res = must[hostgate.ShellResult](t, "shell tree")(c.Shell(ctx, host, "/bin/sh", script, 1))
	if !res.TimedOut {
		t.Fatalf("shell tree: %+v, want timed_out", res)
	}
	b, _ := os.ReadFile(pidFile)
	pids := strings.Fields(string(b))
	if len(pids) != 2 {
		t.Fatalf("pids recorded: %q", b)
	}
	for _, p := range pids {
		pid, _ := strconv.Atoi(p)
		eventually.True(t, 5*time.Second, "process "+p+" of the tree gone", func() bool { return !alive(pid) })
	}

	// exec starts asynchronously; list finds it; kill ends it. The program
	// is a copy of sleep under a name of its own: kill acts on every
	// process of a name, and other tests run sleep at the same time.
	name := fmt.Sprintf("hgsleep%d", os.Getpid())
	prog := filepath.Join(t.TempDir(), name)
	if b, err := os.ReadFile("/bin/sleep"); err != nil || os.WriteFile(prog, b, 0o755) != nil {
		t.Fatalf("copy sleep: %v", err)
	}
	pid := must[int](t, "exec")(c.Exec(ctx, host, prog, "300"))
	procs := must[[]hostgate.Process](t, "list")(c.ListProcesses(ctx, host, name))
	found := false
	for _, p := range procs {
		found = found || p.PID == pid
	}
	if !found {
		t.Fatalf("list %q lacks the started pid %d: %+v", name, pid, procs)
	}
	kr := must[hostgate.KillResult](t, "kill")(c.Kill(ctx, host, name, 5))
	if len(kr.Matched) == 0 || kr.Exited+kr.Killed != len(kr.Matched) {
		t.Errorf("kill: %+v", kr)
	}
	eventually.True(t, 5*time.Second, "exec'd process gone", func() bool { return !alive(pid) })

	info := must[hostgate.SystemInfo](t, "info")(c.SystemInfo(ctx, host))
	hn, _ := os.Hostname()
	if info.OS != "linux" || info.Hostname != hn || info.MemTotalBytes == 0 {
		t.Errorf("info: %+v", info)
	}
	m := must[hostgate.Metrics](t, "metrics")(c.Metrics(ctx, host))
	if m.CPUPct < 0 || m.CPUPct > 100 || m.MemPct <= 0 || m.UptimeS <= 0 {
		t.Errorf("metrics: %+v", m)
	}

	if _, err := c.ServiceCtl(ctx, host, "", hostgate.ServiceRequest{Action: "list"}); hostgate.ErrorCode(err) != "unsupported_platform" {
		t.Errorf("service on linux: %v", err)
	}
	if _, err := c.Registry(ctx, host, `HKLM\Software`, hostgate.RegistryRequest{Action: "list"}); hostgate.ErrorCode(err) != "unsupported_platform" {
		t.Errorf("registry on linux: %v", err)
	}
	if _, err := c.ScheduledTask(ctx, host, "", hostgate.TaskRequest{Action: "list"}); hostgate.ErrorCode(err) != "unsupported_platform" {
		t.Errorf("scheduled task on linux: %v", err)
	}
	// Raw: any operation by its value.
	raw := must[[]byte](t, "raw")(func() ([]byte, error) {
		r, err := c.Raw(ctx, host, hostgate.CtlSystemMetrics, "", nil)
		return r, err
	}())
	if !strings.Contains(string(raw), "cpu_pct") {
		t.Errorf("raw metrics: %s", raw)
	}
	// A value no agent carries out is carried to the agent all the same,
	// which names it in 501 unsupported_control (docs/operations.md).
	if _, err := c.Raw(ctx, host, 3, "", nil); hostgate.ErrorCode(err) != "unsupported_control" || !strings.Contains(err.Error(), "controls 3") {
		t.Errorf("raw with an unknown value: %v", err)
	}
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	// A zombie is dead for our purpose.
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// TestConcurrentChargesExact: 200 concurrent calls on a balance covering
// 37 of them: exactly 37 run, 163 get 402, the balance ends at 0, with
// 37 charge events. On SQLite and on PostgreSQL + Redis.
func TestConcurrentChargesExact(t *testing.T) {
	for _, scaled := range []bool{false, true} {
		t.Run(map[bool]string{false: "sqlite", true: "postgres"}[scaled], func(t *testing.T) {
			h, cust, c, host := onlineHost(t, scaled, 37) // files/dir costs 1 token
			dir := t.TempDir()
			var wg sync.WaitGroup
			var mu sync.Mutex
			ran, broke := 0, 0
			for i := range 200 {
				wg.Go(func() {
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					_, err := c.MakeDir(ctx, host, filepath.Join(dir, strconv.Itoa(i)))
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						ran++
					case hostgate.IsInsufficientBalance(err):
						broke++
					default:
						t.Errorf("call %d: %v", i, err)
					}
				})
			}
			wg.Wait()
			entries, _ := os.ReadDir(dir)
			if ran != 37 || broke != 163 || len(entries) != 37 {
				t.Fatalf("%d ran, %d refused, %d directories; want 37, 163, 37", ran, broke, len(entries))
			}
			if b := cust.Balance(h); b != 0 {
				t.Errorf("balance %v, want 0", b)
			}
			var events struct {
				Items []struct{ Kind string }
				Total int
			}
			call(t, "GET", h.URL+"/v1/user/billing/events?limit=200", cust.Token, nil, &events)
			charges := 0
			for _, e := range events.Items {
				if e.Kind == "charge" {
					charges++
				}
			}
			if charges != 37 || events.Total != 38 {
				t.Errorf("%d charge events of %d, want 37 of 38 (with the funding)", charges, events.Total)
			}
		})
	}
}
