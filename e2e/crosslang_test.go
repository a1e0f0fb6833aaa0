package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"go/format"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/eventually"
	hostgate "hostgate/sdk/go"
)

// The cross-language scenario (issue 19, item 4): the same steps through
// the Go SDK, the Python SDK (e2e/crosslang/scenario.py), the TypeScript
// SDK (e2e/crosslang/scenario.mjs) and the CLI (cmd/hostgate-cli), against
// one hub process and real agents. Each language
//
//  1. creates a host with credentials, and a second host without an agent
//     (phase "create"); the test starts a real agent with the credentials
//     the language printed and waits until it is online;
//  2. (phase "run") runs a shell command with known output and a known
//     non-zero exit status, reads a file the test planted on the agent's
//     machine, is refused 402 insufficient_balance with the key of a user
//     whose balance is empty and 409 host_offline on the host without an
//     agent (each recognised by the SDK's predicate), and verifies a Format
//     A and a Format B delivery and a job.finished delivery (signed with
//     the user's webhook secret) the hub sent to the test's receiver, and
//     refuses each with one byte appended to the body;
//  3. (phase "run", issue 26) tags its two hosts xl=<language>, runs a job
//     on that tag (a shell command; the host without an agent is skipped
//     host_offline), waits for it and reads every host's result.
//
// Each prints one normalized JSON result; every result must be the expected
// one, and the four must be equal (the CLI has no webhook verification, so
// its column leaves the webhooks out).

// xlResult is the normalized result every language prints in phase run.
type xlResult struct {
	Shell struct {
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
		ExitCode int    `json:"exit_code"`
		TimedOut bool   `json:"timed_out"`
	} `json:"shell"`
	Read struct {
		Path     string `json:"path"`
		Content  string `json:"content"`
		Encoding string `json:"encoding"`
		Bytes    int64  `json:"bytes"`
	} `json:"read"`
	InsufficientBalance xlRefusal   `json:"insufficient_balance"`
	HostOffline         xlRefusal   `json:"host_offline"`
	Webhooks            []xlWebhook `json:"webhooks"`
	WebhooksTampered    []string    `json:"webhooks_tampered"`
	Job                 xlJob       `json:"job"`
}

// xlJob is the job each language runs on the tag of its two hosts.
type xlJob struct {
	State     string             `json:"state"`
	HostCount int                `json:"host_count"`
	Totals    hostgate.JobTotals `json:"totals"`
	// Results are sorted by Host.
	Results []xlJobResult `json:"results"`
}

// xlJobResult is one host's result; Host is "offline" or "online".
type xlJobResult struct {
	Host     string `json:"host"`
	State    string `json:"state"`
	ExitCode *int   `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Error    string `json:"error"`
}

// xlRefusal is an API error and what the SDK's predicates say of it.
type xlRefusal struct {
	Status                int    `json:"status"`
	Error                 string `json:"error"`
	IsInsufficientBalance bool   `json:"is_insufficient_balance"`
	IsHostOffline         bool   `json:"is_host_offline"`
}

// xlWebhook is a verified delivery.
type xlWebhook struct {
	Format       string `json:"format"`
	Event        string `json:"event"`
	DeliveryID   string `json:"delivery_id"`
	HostID       string `json:"host_id"`
	NewSecretKey string `json:"new_secret_key"`
	BID          int64  `json:"bid"`
	URL          string `json:"url"`
}

// xlCreated is what phase create prints.
type xlCreated struct {
	Host        hostgate.Host         `json:"host"`
	Credentials *hostgate.Credentials `json:"credentials"`
	OfflineHost hostgate.Host         `json:"offline_host"`
}

// xlDelivery is one captured delivery as the scripts read it.
type xlDelivery struct {
	Headers map[string]string `json:"headers"`
	BodyB64 string            `json:"body_b64"`
	Secret  string            `json:"secret"`
}

// The command every language runs: stdout and stderr with a newline and a
// non-ASCII letter, and exit status 7. The CLI gets it as argv; the SDKs as
// the args string of docs/operations/processes.md.
const (
	xlScript   = `printf "crosslang out \303\274\n"; printf "crosslang err\n" >&2; exit 7`
	xlProgram  = "/bin/sh"
	xlArgs     = "-c '" + xlScript + "'"
	xlContent  = "planted by e2e/crosslang_test.go ✓\nsecond line\n"
	xlFileName = "planted.txt"
	// The job's command: it succeeds on the host with an agent.
	xlJobScript = `printf "job out \303\274\n"`
	xlJobArgs   = "-c '" + xlJobScript + "'"
)

// xlLang is one column of the scenario.
type xlLang struct {
	name string
	// prepare checks the language can run (skipOrFail otherwise).
	prepare func(t *testing.T)
	create  func(t *testing.T, env map[string]string) xlCreated
	run     func(t *testing.T, env map[string]string) xlResult
	// webhooks: whether the column verifies deliveries.
	webhooks bool
}

func TestCrossLang(t *testing.T) {
	e := NewEnv(t, false)
	e.env["HOSTGATE_WEBHOOK_ALLOW_PRIVATE"] = "1"
	e.env["HOSTGATE_WEBHOOK_SCHEDULE_SCALE"] = "0.1"
	h := e.StartHub()
	c := NewCustomer(t, h)
	c.Fund(h, 100)

	// A user whose balance is empty, with an online host: the charge (step
	// 5 of docs/billing.md) comes after the host_offline check, so only an
	// online host shows the 402.
	empty := NewCustomer(t, h)
	emptyCreds := empty.CreateHost(h, "xl-empty")
	e.StartAgent(emptyCreds, t.TempDir())
	eventually.True(t, 30*time.Second, "the empty user's agent online", func() bool { return empty.Connected(h, emptyCreds.HostID) })

	dir := t.TempDir()
	file := filepath.Join(dir, xlFileName)
	if err := os.WriteFile(file, []byte(xlContent), 0o644); err != nil {
		t.Fatal(err)
	}
	deliveries, want := xlCaptureDeliveries(t, h, c)
	deliveriesFile := filepath.Join(dir, "deliveries.json")
	b, _ := json.Marshal(deliveries)
	if err := os.WriteFile(deliveriesFile, b, 0o644); err != nil {
		t.Fatal(err)
	}

	want.Shell.Stdout, want.Shell.Stderr, want.Shell.ExitCode = "crosslang out ü\n", "crosslang err\n", 7
	want.Read.Path, want.Read.Content, want.Read.Encoding, want.Read.Bytes = file, xlContent, "utf-8", int64(len(xlContent))
	want.InsufficientBalance = xlRefusal{Status: 402, Error: "insufficient_balance", IsInsufficientBalance: true}
	want.HostOffline = xlRefusal{Status: 409, Error: "host_offline", IsHostOffline: true}
	want.WebhooksTampered = []string{"signature", "signature", "signature"}
	zero := 0
	want.Job = xlJob{State: "finished", HostCount: 2, Totals: hostgate.JobTotals{Succeeded: 1, Skipped: 1}, Results: []xlJobResult{
		{Host: "offline", State: "skipped", Error: "host_offline"},
		{Host: "online", State: "succeeded", ExitCode: &zero, Stdout: "job out ü\n"},
	}}

	results := map[string]xlResult{}
	for _, l := range xlLangs() {
		t.Run(l.name, func(t *testing.T) {
			l.prepare(t)
			env := map[string]string{"HOSTGATE_URL": h.URL, "HOSTGATE_API_KEY": c.Key, "XL_NAME": "xl-" + l.name}
			cr := l.create(t, env)
			if cr.Host.ID == "" || cr.Host.Name != "xl-"+l.name {
				t.Fatalf("created host %+v, want one named xl-%s", cr.Host, l.name)
			}
			if cr.Credentials == nil || cr.Credentials.HostID != cr.Host.ID || cr.Credentials.SecretKey == "" || cr.Credentials.InstallToken == "" {
				t.Fatalf("credentials %+v do not install host %s", cr.Credentials, cr.Host.ID)
			}
			if cr.OfflineHost.ID == "" || cr.OfflineHost.ID == cr.Host.ID || cr.OfflineHost.Name != "xl-"+l.name+"-offline" {
				t.Fatalf("offline host %+v", cr.OfflineHost)
			}
			// The agent runs with exactly what the language printed.
			var creds Credentials
			raw, _ := json.Marshal(cr.Credentials)
			if err := json.Unmarshal(raw, &creds); err != nil {
				t.Fatal(err)
			}
			e.StartAgent(creds, t.TempDir())
			eventually.True(t, 30*time.Second, l.name+" host online", func() bool { return c.Connected(h, cr.Host.ID) })

			maps := map[string]string{"XL_HOST_ID": cr.Host.ID, "XL_OFFLINE_HOST_ID": cr.OfflineHost.ID,
				"XL_SHELL_PROGRAM": xlProgram, "XL_SHELL_ARGS": xlArgs, "XL_FILE": file,
				"XL_EMPTY_KEY": empty.Key, "XL_EMPTY_HOST_ID": emptyCreds.HostID, "XL_DELIVERIES": deliveriesFile,
				"XL_TAG": "xl=" + l.name, "XL_JOB_PROGRAM": xlProgram, "XL_JOB_ARGS": xlJobArgs}
			for k, v := range maps {
				env[k] = v
			}
			got := l.run(t, env)
			w := want
			if !l.webhooks {
				w.Webhooks, w.WebhooksTampered = nil, nil
			}
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("%s result:\n%s\nwant:\n%s", l.name, xlJSON(got), xlJSON(w))
			}
			results[l.name] = got
		})
	}

	// All columns agree (each already equals the expectation; this states
	// the cross-language claim on its own, on the fields every column has).
	if len(results) < 2 {
		return
	}
	base, ok := results["go"]
	if !ok {
		t.Fatalf("no Go result to compare with (%d columns ran)", len(results))
	}
	for name, r := range results {
		b := base
		if r.Webhooks == nil && r.WebhooksTampered == nil {
			b.Webhooks, b.WebhooksTampered = nil, nil
		}
		if !reflect.DeepEqual(r, b) {
			t.Errorf("%s and go differ:\n%s\n%s", name, xlJSON(r), xlJSON(b))
		}
	}
	t.Logf("%d columns agree: %v", len(results), xlKeys(results))
}

func xlKeys(m map[string]xlResult) []string {
	var out []string
	for _, n := range []string{"go", "python", "typescript", "cli"} {
		if _, ok := m[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

func xlJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// xlCaptureDeliveries sends a host's L1 configuration to a receiver twice,
// as Format A and then as Format B, and returns the two deliveries the hub
// made, each with the secret it was signed with, and the expected verified
// events.
func xlCaptureDeliveries(t *testing.T, h *Hub, c Customer) ([]xlDelivery, xlResult) {
	t.Helper()
	var (
		mu  sync.Mutex
		got []xlDelivery
	)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d := xlDelivery{Headers: map[string]string{}, BodyB64: base64.StdEncoding.EncodeToString(body)}
		for k := range r.Header {
			d.Headers[k] = r.Header.Get(k)
		}
		mu.Lock()
		got = append(got, d)
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rcv.Close)

	ctx := context.Background()
	sdk := hostgate.New(h.URL, c.Key)
	host, creds, err := sdk.CreateHost(ctx, "xl-webhooks", 0, true)
	if err != nil {
		t.Fatal(err)
	}
	url := rcv.URL + "/l1"
	secrets := []string{creds.SecretKey, "0a1b2c3d4e5f60718293a4b5c6d7e8f9", "f9e8d7c6b5a4938271605f4e3d2c1b0a"}
	var want xlResult
	for i, format := range []string{"A", "B"} {
		put, err := sdk.PutL1Config(ctx, host.ID, hostgate.L1Config{BID: creds.BID + int64(i) + 1, SecretKey: secrets[i+1], URL: url, WebhookFormat: format})
		if err != nil || put.DeliveryID == "" {
			t.Fatalf("l1-config %s: %+v %v", format, put, err)
		}
		eventually.True(t, 30*time.Second, "Format "+format+" delivery", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(got) > i
		})
		mu.Lock()
		got[i].Secret = secrets[i]
		delivery := got[i].Headers["X-Gateway-Delivery"]
		mu.Unlock()
		event := map[string]string{"A": hostgate.WebhookEventA, "B": hostgate.WebhookEventB}[format]
		want.Webhooks = append(want.Webhooks, xlWebhook{Format: format, Event: event, DeliveryID: delivery,
			HostID: host.ID, NewSecretKey: secrets[i+1], BID: creds.BID + int64(i) + 1, URL: url})
	}
	// A job.finished delivery, signed with the user's webhook secret: a
	// job on the host without an agent, skipped at once.
	ws, err := sdk.RotateWebhookSecret(ctx)
	if err != nil || !strings.HasPrefix(ws.Secret, "whsec_") {
		t.Fatalf("rotate webhook secret: %+v %v", ws, err)
	}
	job, err := sdk.CreateJob(ctx, hostgate.JobRequest{Target: hostgate.JobTarget{HostIDs: []string{host.ID}},
		Operation: hostgate.ShellOperation(xlProgram, xlJobArgs, 30), NotifyURL: rcv.URL + "/jobs"})
	if err != nil {
		t.Fatalf("job with notify_url: %v", err)
	}
	eventually.True(t, 30*time.Second, "job.finished delivery", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) > 2
	})
	mu.Lock()
	defer mu.Unlock()
	got[2].Secret = ws.Secret
	want.Webhooks = append(want.Webhooks, xlWebhook{Format: "A", Event: hostgate.WebhookEventJobFinished, DeliveryID: got[2].Headers["X-Gateway-Delivery"]})
	if len(got) != 3 {
		t.Fatalf("%d deliveries captured, want 3", len(got))
	}
	if j, err := sdk.GetJob(ctx, job.ID); err != nil || !j.Final() || j.Totals.Skipped != 1 {
		t.Fatalf("the notify job: %+v %v", j, err)
	}
	if !strings.HasPrefix(want.Webhooks[1].DeliveryID, "wd_") {
		t.Fatalf("the Format B delivery id %q lacks wd_", want.Webhooks[1].DeliveryID)
	}
	return got, want
}

func xlLangs() []xlLang {
	return []xlLang{
		{name: "go", prepare: func(*testing.T) {}, create: xlGoCreate, run: xlGoRun, webhooks: true},
		{name: "python", prepare: xlNeed("python3", ""), webhooks: true,
			create: xlScriptPhase[xlCreated]("python3", "crosslang/scenario.py", "create"),
			run:    xlScriptPhase[xlResult]("python3", "crosslang/scenario.py", "run")},
		{name: "typescript", prepare: xlNeedTS, webhooks: true,
			create: xlScriptPhase[xlCreated]("node", "crosslang/scenario.mjs", "create"),
			run:    xlScriptPhase[xlResult]("node", "crosslang/scenario.mjs", "run")},
		{name: "cli", prepare: xlNeedCLI, create: xlCLICreate, run: xlCLIRun},
	}
}

// --- Go: the SDK in this process ------------------------------------------

func xlGoCreate(t *testing.T, env map[string]string) xlCreated {
	ctx := context.Background()
	c := hostgate.New(env["HOSTGATE_URL"], env["HOSTGATE_API_KEY"])
	host, creds, err := c.CreateHost(ctx, env["XL_NAME"], 0, true)
	if err != nil {
		t.Fatal(err)
	}
	off, _, err := c.CreateHost(ctx, env["XL_NAME"]+"-offline", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	return xlCreated{Host: host, Credentials: creds, OfflineHost: off}
}

func xlGoRefusal(err error) xlRefusal {
	if e, ok := errors.AsType[*hostgate.Error](err); ok {
		return xlRefusal{Status: e.Status, Error: e.Code, IsInsufficientBalance: hostgate.IsInsufficientBalance(err), IsHostOffline: hostgate.IsHostOffline(err)}
	}
	return xlRefusal{Status: 200, Error: fmt.Sprint(err)}
}

func xlGoRun(t *testing.T, env map[string]string) xlResult {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := hostgate.New(env["HOSTGATE_URL"], env["HOSTGATE_API_KEY"])
	var r xlResult
	sh, err := c.Shell(ctx, env["XL_HOST_ID"], env["XL_SHELL_PROGRAM"], env["XL_SHELL_ARGS"], 30)
	if err != nil {
		t.Fatal(err)
	}
	r.Shell.Stdout, r.Shell.Stderr, r.Shell.ExitCode, r.Shell.TimedOut = sh.Stdout, sh.Stderr, sh.ExitCode, sh.TimedOut
	rd, err := c.ReadString(ctx, env["XL_HOST_ID"], env["XL_FILE"])
	if err != nil {
		t.Fatal(err)
	}
	r.Read.Path, r.Read.Content, r.Read.Encoding, r.Read.Bytes = rd.Path, rd.Content, rd.Encoding, rd.Bytes
	_, err = hostgate.New(env["HOSTGATE_URL"], env["XL_EMPTY_KEY"]).Shell(ctx, env["XL_EMPTY_HOST_ID"], env["XL_SHELL_PROGRAM"], env["XL_SHELL_ARGS"], 30)
	r.InsufficientBalance = xlGoRefusal(err)
	_, err = c.Shell(ctx, env["XL_OFFLINE_HOST_ID"], env["XL_SHELL_PROGRAM"], env["XL_SHELL_ARGS"], 30)
	r.HostOffline = xlGoRefusal(err)

	b, err := os.ReadFile(env["XL_DELIVERIES"])
	if err != nil {
		t.Fatal(err)
	}
	var ds []xlDelivery
	if err := json.Unmarshal(b, &ds); err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		hdr := http.Header{}
		for k, v := range d.Headers {
			hdr.Set(k, v)
		}
		body, _ := base64.StdEncoding.DecodeString(d.BodyB64)
		ev, err := hostgate.VerifyWebhook(hdr, body, d.Secret)
		if err != nil {
			t.Fatalf("verify: %v", err)
		}
		r.Webhooks = append(r.Webhooks, xlWebhook{Format: ev.Format, Event: ev.Event, DeliveryID: ev.DeliveryID,
			HostID: ev.HostID, NewSecretKey: ev.NewSecretKey, BID: ev.BID, URL: ev.URL})
		_, err = hostgate.VerifyWebhook(hdr, append(body, ' '), d.Secret)
		if ve, ok := errors.AsType[*hostgate.WebhookVerificationError](err); ok {
			r.WebhooksTampered = append(r.WebhooksTampered, ve.Reason)
		} else {
			r.WebhooksTampered = append(r.WebhooksTampered, fmt.Sprintf("accepted (%v)", err))
		}
	}
	r.Job = xlGoJob(ctx, t, c, env)
	return r
}

// xlGoJob tags the two hosts, runs the job on the tag and reads its
// results.
func xlGoJob(ctx context.Context, t *testing.T, c *hostgate.Client, env map[string]string) xlJob {
	k, v, _ := strings.Cut(env["XL_TAG"], "=")
	for _, id := range []string{env["XL_HOST_ID"], env["XL_OFFLINE_HOST_ID"]} {
		if _, err := c.SetTags(ctx, id, map[string]string{k: v}); err != nil {
			t.Fatalf("set tags: %v", err)
		}
	}
	job, err := c.CreateJob(ctx, hostgate.JobRequest{Target: hostgate.JobTarget{Tags: []string{env["XL_TAG"]}},
		Operation: hostgate.ShellOperation(env["XL_JOB_PROGRAM"], env["XL_JOB_ARGS"], 30)})
	if err != nil {
		t.Fatalf("create job: %v", err)
	}
	job, err = c.WaitJob(ctx, job.ID, time.Minute)
	if err != nil {
		t.Fatalf("wait job: %v", err)
	}
	x := xlJob{State: job.State, HostCount: job.HostCount, Totals: job.Totals}
	for r, err := range c.JobResults(ctx, job.ID, "") {
		if err != nil {
			t.Fatalf("job results: %v", err)
		}
		x.Results = append(x.Results, xlJobResult{Host: xlRole(r.HostID, env), State: r.State, ExitCode: r.ExitCode, Stdout: r.Stdout, Error: r.Error})
	}
	slices.SortFunc(x.Results, func(a, b xlJobResult) int { return strings.Compare(a.Host, b.Host) })
	return x
}

func xlRole(hostID string, env map[string]string) string {
	if hostID == env["XL_HOST_ID"] {
		return "online"
	}
	return "offline"
}

// --- Python and TypeScript: scripts in two phases --------------------------

func xlNeed(bin, what string) func(*testing.T) {
	return func(t *testing.T) {
		if _, err := exec.LookPath(bin); err != nil {
			skipOrFail(t, "%s is not installed%s", bin, what)
		}
	}
}

func xlNeedTS(t *testing.T) {
	xlNeed("node", "")(t)
	if _, err := os.Stat(filepath.Join("..", "sdk", "typescript", "dist", "index.js")); err != nil {
		skipOrFail(t, "the TypeScript SDK is not built: run make test (or npm --prefix sdk/typescript ci && npm --prefix sdk/typescript run build)")
	}
}

// xlScriptPhase runs `bin script phase` with env (the Python SDK on
// PYTHONPATH) and decodes its stdout strictly into T.
func xlScriptPhase[T any](bin, script, phase string) func(t *testing.T, env map[string]string) T {
	return func(t *testing.T, env map[string]string) T {
		t.Helper()
		cmd := exec.Command(bin, script, phase)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join("..", "sdk", "python", "src"))
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s %s: %v\nstdout: %s\nstderr: %s", bin, script, phase, err, stdout.String(), stderr.String())
		}
		return xlDecode[T](t, stdout.Bytes())
	}
}

// xlDecode decodes one JSON document, refusing unknown fields in a result
// (a script printing more than the schema says is a mismatch too).
func xlDecode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, isResult := any(v).(xlResult); isResult {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// --- CLI: cmd/hostgate-cli, with --json ------------------------------------

var (
	xlCLIOnce sync.Once
	xlCLIBin  string
	xlCLIErr  error
)

func xlNeedCLI(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", "cmd", "hostgate-cli")); err != nil {
		skipOrFail(t, "cmd/hostgate-cli does not exist yet (issue 19, item 3): the CLI column cannot run")
	}
	hub, _ := binaries(t)
	xlCLIOnce.Do(func() {
		xlCLIBin = filepath.Join(filepath.Dir(hub), "hostgate-cli-crosslang")
		if out, err := exec.Command("go", "build", "-o", xlCLIBin, "hostgate/cmd/hostgate-cli").CombinedOutput(); err != nil {
			xlCLIErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if xlCLIErr != nil {
		t.Fatalf("build hostgate-cli: %v", xlCLIErr)
	}
}

// xlCLI runs hostgate-cli --json args with HOSTGATE_URL and
// HOSTGATE_API_KEY from env and returns stdout, stderr and the exit status.
func xlCLI(t *testing.T, env map[string]string, key string, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	cmd := exec.Command(xlCLIBin, append([]string{"--json"}, args...)...)
	// Only the test's configuration: no HOSTGATE_* of this process, no
	// config file of the user running it.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOSTGATE_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") && !strings.HasPrefix(kv, "HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(),
		"HOSTGATE_URL="+env["HOSTGATE_URL"], "HOSTGATE_API_KEY="+key)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if err != nil {
		if _, ok := errors.AsType[*exec.ExitError](err); !ok {
			t.Fatalf("hostgate-cli %v: %v", args, err)
		}
	}
	return o.Bytes(), e.Bytes(), cmd.ProcessState.ExitCode()
}

func xlCLIOK(t *testing.T, env map[string]string, args ...string) []byte {
	t.Helper()
	out, errOut, code := xlCLI(t, env, env["HOSTGATE_API_KEY"], args...)
	if code != 0 {
		t.Fatalf("hostgate-cli %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
	}
	return out
}

func xlCLICreate(t *testing.T, env map[string]string) xlCreated {
	var cr, off xlCreated
	cr = xlDecode[xlCreated](t, xlCLIOK(t, env, "hosts", "create", env["XL_NAME"], "--credentials"))
	off = xlDecode[xlCreated](t, xlCLIOK(t, env, "hosts", "create", env["XL_NAME"]+"-offline", "--credentials"))
	cr.OfflineHost = off.Host
	return cr
}

// xlCLIRefusal runs a shell that must fail with an API error: exit 1 and
// {status, error, message} as the last line on stderr. The CLI has no predicates; the
// columns compare the code the error carries.
func xlCLIRefusal(t *testing.T, env map[string]string, key, hostID string) xlRefusal {
	t.Helper()
	out, errOut, code := xlCLI(t, env, key, "shell", hostID, "--", xlProgram, "-c", xlScript)
	if code != 1 {
		t.Errorf("hostgate-cli shell %s: exit %d, want 1 for an API error\nstdout: %s\nstderr: %s", hostID, code, out, errOut)
	}
	var e struct {
		Status  int    `json:"status"`
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	// docs/cli.md: an error line for people, then (--json) the JSON line.
	lines := strings.Split(strings.TrimSpace(string(errOut)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &e); err != nil || e.Message == "" {
		t.Errorf("hostgate-cli shell %s: stderr %q is not {status, error, message}: %v", hostID, errOut, err)
	}
	return xlRefusal{Status: e.Status, Error: e.Error, IsInsufficientBalance: e.Error == "insufficient_balance", IsHostOffline: e.Error == "host_offline"}
}

func xlCLIRun(t *testing.T, env map[string]string) xlResult {
	var r xlResult
	// The remote exit status is the CLI's own.
	out, errOut, code := xlCLI(t, env, env["HOSTGATE_API_KEY"], "shell", env["XL_HOST_ID"], "--", xlProgram, "-c", xlScript)
	if code != 7 {
		t.Errorf("hostgate-cli shell: exit %d, want the remote 7\nstderr: %s", code, errOut)
	}
	if err := json.Unmarshal(out, &r.Shell); err != nil {
		t.Fatalf("hostgate-cli shell: %q: %v", out, err)
	}
	if err := json.Unmarshal(xlCLIOK(t, env, "read", env["XL_HOST_ID"], env["XL_FILE"]), &r.Read); err != nil {
		t.Fatalf("hostgate-cli read: %v", err)
	}
	r.InsufficientBalance = xlCLIRefusal(t, env, env["XL_EMPTY_KEY"], env["XL_EMPTY_HOST_ID"])
	r.HostOffline = xlCLIRefusal(t, env, env["HOSTGATE_API_KEY"], env["XL_OFFLINE_HOST_ID"])
	r.Job = xlCLIJob(t, env)
	return r
}

// xlCLIJob tags the two hosts and runs the job with --follow: exit 3, as
// one host did not succeed, and {job, results} on stdout.
func xlCLIJob(t *testing.T, env map[string]string) xlJob {
	for _, id := range []string{env["XL_HOST_ID"], env["XL_OFFLINE_HOST_ID"]} {
		xlCLIOK(t, env, "tags", "set", id, env["XL_TAG"])
	}
	out, errOut, code := xlCLI(t, env, env["HOSTGATE_API_KEY"], "jobs", "run", "--tag", env["XL_TAG"], "--follow", "--interval", "200ms",
		"--", env["XL_JOB_PROGRAM"], "-c", xlJobScript)
	if code != 3 {
		t.Errorf("hostgate-cli jobs run --follow: exit %d, want 3 (a host did not succeed)\nstderr: %s", code, errOut)
	}
	var got struct {
		Job     hostgate.Job         `json:"job"`
		Results []hostgate.JobResult `json:"results"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("hostgate-cli jobs run: %q: %v", out, err)
	}
	x := xlJob{State: got.Job.State, HostCount: got.Job.HostCount, Totals: got.Job.Totals}
	for _, r := range got.Results {
		x.Results = append(x.Results, xlJobResult{Host: xlRole(r.HostID, env), State: r.State, ExitCode: r.ExitCode, Stdout: r.Stdout, Error: r.Error})
	}
	slices.SortFunc(x.Results, func(a, b xlJobResult) int { return strings.Compare(a.Host, b.Host) })
	return x
}

// TestReadmeExamples runs the example of each SDK's README as written,
// against a hub and a real agent, through the SDK installed the way its
// README says (issue 19, item 5): the Go program in a module of its own
// with a replace directive, the Python one from the plain venv the README's
// install commands (venv, pip install, no index) put the package into, the
// TypeScript one from a project the `npm pack` tarball was installed into.
// Each prints the host's name, that it is online, exit status 0 and
// `uname -a`.
func TestReadmeExamples(t *testing.T) {
	e := NewEnv(t, false)
	h := e.StartHub()
	c := NewCustomer(t, h)
	c.Fund(h, 30)
	creds := c.CreateHost(h, "readme-host")
	e.StartAgent(creds, t.TempDir())
	eventually.True(t, 30*time.Second, "agent online", func() bool { return c.Connected(h, creds.HostID) })
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOSTGATE_URL="+h.URL, "HOSTGATE_API_KEY="+c.Key, "HOSTGATE_HOST_ID="+creds.HostID)
	check := func(t *testing.T, out []byte, online string) {
		t.Helper()
		want := "readme-host " + online + " 0 Linux "
		if !strings.HasPrefix(string(out), want) {
			t.Fatalf("the example printed %q, want it to start with %q", out, want)
		}
	}

	t.Run("go", func(t *testing.T) {
		src := readmeBlock(t, filepath.Join(root, "sdk/go/README.md"), "go")
		if f, err := format.Source(src); err != nil || !bytes.Equal(f, src) {
			t.Fatalf("the README's program is not gofmt-clean (%v)", err)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		readmeRun(t, dir, nil, "go", "mod", "init", "hello")
		readmeRun(t, dir, nil, "go", "mod", "edit", "-require=hostgate@v0.0.0", "-replace=hostgate="+root)
		check(t, readmeRun(t, dir, env, "go", "run", "."), "true")
	})

	t.Run("python", func(t *testing.T) {
		py := readmePython(t)
		// The README's install commands as written, with its venv and
		// ./sdk/python swapped for temporary ones (a copy of the package:
		// pip imports the build backend from the tree) and python3 for the
		// Python found. PIP_NO_INDEX: pip may fetch nothing.
		pkg := filepath.Join(t.TempDir(), "python")
		if err := os.CopyFS(pkg, os.DirFS(filepath.Join(root, "sdk/python"))); err != nil {
			t.Fatal(err)
		}
		venv := filepath.Join(t.TempDir(), "venv")
		pyenv := []string{"PIP_NO_INDEX=1", "PIP_DISABLE_PIP_VERSION_CHECK=1", "PYTHONPATH=", "PYTHONNOUSERSITE=1"}
		var last []byte
		for _, line := range readmeInstall(t, filepath.Join(root, "sdk/python/README.md")) {
			line = strings.ReplaceAll(strings.ReplaceAll(line, "/tmp/hostgate-venv", venv), "./sdk/python", pkg)
			if rest, ok := strings.CutPrefix(line, "python3 "); ok {
				line = py + " " + rest
			}
			last = readmeRun(t, t.TempDir(), append(os.Environ(), pyenv...), "sh", "-c", line)
		}
		if got := strings.TrimSpace(string(last)); got != hostgate.Version {
			t.Fatalf("the README's install printed %q, want the version %q", got, hostgate.Version)
		}
		cfg, err := os.ReadFile(filepath.Join(venv, "pyvenv.cfg"))
		if err != nil || !strings.Contains(string(cfg), "include-system-site-packages = false") {
			t.Fatalf("the README's venv is not a plain one (%v):\n%s", err, cfg)
		}
		vpy := filepath.Join(venv, "bin/python")
		where := strings.TrimSpace(string(readmeRun(t, t.TempDir(), append(os.Environ(), pyenv...), vpy, "-c",
			"import hostgate, importlib.metadata as m, os; print(hostgate.__version__, m.version('hostgate'), "+
				"os.path.exists(os.path.join(os.path.dirname(hostgate.__file__), 'py.typed')), hostgate.__file__)")))
		if want := hostgate.Version + " " + hostgate.Version + " True " + venv; !strings.HasPrefix(where, want) {
			t.Fatalf("installed package: %q, want %q…", where, want)
		}
		src := readmeBlock(t, filepath.Join(root, "sdk/python/README.md"), "python")
		check(t, readmeRun(t, t.TempDir(), append(env, pyenv...), vpy, "-c", string(src)), "True")
	})

	t.Run("typescript", func(t *testing.T) {
		xlNeed("npm", "")(t)
		sdk := filepath.Join(root, "sdk/typescript")
		if _, err := os.Stat(filepath.Join(sdk, "node_modules", ".package-lock.json")); err != nil {
			skipOrFail(t, "sdk/typescript has no node_modules: run make test (or npm --prefix sdk/typescript ci)")
		}
		packs := t.TempDir()
		readmeRun(t, sdk, nil, "npm", "pack", "--pack-destination", packs) // prepack builds dist/
		tgz := filepath.Join(packs, "hostgate-sdk-"+hostgate.Version+".tgz")
		list := string(readmeRun(t, "", nil, "tar", "tzf", tgz))
		for _, f := range []string{"package/package.json", "package/README.md", "package/dist/index.js", "package/dist/index.d.ts",
			"package/dist/schema.d.ts", "package/dist/version.js"} {
			if !strings.Contains(list, f+"\n") {
				t.Errorf("the tarball lacks %s:\n%s", f, list)
			}
		}
		for _, f := range []string{"package/src/", "package/test/", "package/node_modules/", "package/scripts/"} {
			if strings.Contains(list, f) {
				t.Errorf("the tarball holds %s:\n%s", f, list)
			}
		}
		proj := t.TempDir()
		if err := os.WriteFile(filepath.Join(proj, "package.json"), []byte(`{"name":"readme-example","private":true,"type":"module"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		readmeRun(t, proj, nil, "npm", "install", "--no-audit", "--no-fund", tgz)
		v := readmeRun(t, proj, nil, "node", "-e", "import('@hostgate/sdk').then((m) => console.log(m.VERSION))")
		if strings.TrimSpace(string(v)) != hostgate.Version {
			t.Fatalf("installed VERSION %q, want %q", v, hostgate.Version)
		}
		src := readmeBlock(t, filepath.Join(root, "sdk/typescript/README.md"), "js")
		if err := os.WriteFile(filepath.Join(proj, "example.mjs"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, readmeRun(t, proj, env, "node", "example.mjs"), "true")
	})
}

// readmeBlock is the first ```lang block of a README; the examples must
// stay five lines (the Go one: five lines in main).
func readmeBlock(t *testing.T, path, lang string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n```"+lang+"\n")
	block, _, closed := strings.Cut(rest, "\n```\n")
	if !ok || !closed {
		t.Fatalf("%s has no ```%s block", path, lang)
	}
	lines := strings.Split(block, "\n")
	if lang == "go" {
		_, body, _ := strings.Cut(block, "func main() {\n")
		lines = nil
		for l := range strings.SplitSeq(body, "\n") {
			if t := strings.TrimSpace(l); t != "" && t != "}" && !strings.HasPrefix(t, "if err != nil") && !strings.HasPrefix(t, "log.Fatal(err)") {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) != 5 {
		t.Fatalf("%s: the example has %d lines, want 5:\n%s", path, len(lines), block)
	}
	return []byte(block + "\n")
}

// readmeRun runs a command (env nil: this process's) and returns its
// stdout, failing the test with both outputs when it fails.
func readmeRun(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes()
}

// readmePython is a Python that can make the README's install: one with
// venv and ensurepip (Debian's python3-venv). The package builds with its
// own standard-library backend, so nothing else is needed.
func readmePython(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, c := range []string{"python3", "/usr/bin/python3"} {
		p, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		if exec.Command(p, "-c", "import ensurepip, venv, sys; sys.exit(sys.version_info < (3, 9))").Run() == nil {
			return p
		}
		tried = append(tried, p)
	}
	skipOrFail(t, "no python3 ≥ 3.9 with venv and ensurepip (tried %v): apt-get install python3-venv", tried)
	return ""
}

// readmeInstall is the lines of the ```sh block of a README's "## Install"
// section: a venv, pip install into it, and a line printing the version.
func readmeInstall(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Install\n")
	sec, _, _ = strings.Cut(sec, "\n## ")
	_, rest, fenced := strings.Cut(sec, "\n```sh\n")
	block, _, closed := strings.Cut(rest, "\n```\n")
	if !ok || !fenced || !closed {
		t.Fatalf("%s has no ```sh block under ## Install", path)
	}
	lines := strings.Split(block, "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "python3 -m venv ") || !strings.Contains(lines[1], "/bin/pip install ./sdk/python") {
		t.Fatalf("%s: the install block is not venv, pip install ./sdk/python, version:\n%s", path, block)
	}
	return lines
}
