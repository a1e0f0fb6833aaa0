package verifyparity

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"hostgate/internal/battery"
	hostgate "hostgate/sdk/go"
)

// The three SDKs' webhook verifiers give the same verdict for every input
// (issue 27, item 0): the shared corpus sdk/testdata/verify/*.json, which
// the Python and TypeScript test suites run too, and FuzzVerifierParity,
// which feeds the same random inputs to this package and to one Python and
// one Node process running the other two (sdk/testdata/verify/driver.*).

const verifyCorpusDir = "../../testdata/verify"

// verifyCase is one case of the corpus (sdk/testdata/verify/README.md).
type verifyCase struct {
	Name    string      `json:"name"`
	Headers [][2]string `json:"headers"`
	Body    *string     `json:"body"`
	BodyB64 string      `json:"body_b64"`
	Secret  string      `json:"secret"`
	Now     int64       `json:"now"`
	MAC     *struct {
		Key string `json:"key"`
		T   string `json:"t"`
	} `json:"mac"`
	Want verdict `json:"want"`
}

// verdict is what a verifier said: "accept" with the event's type, id and
// new secret, or the reason of its refusal; any other outcome (a panic, or
// another exception type in Python or TypeScript) is a verdict of its own.
type verdict struct {
	Verdict      string `json:"verdict"`
	Event        string `json:"event,omitempty"`
	DeliveryID   string `json:"delivery_id,omitempty"`
	NewSecretKey string `json:"new_secret_key,omitempty"`
	Error        string `json:"error,omitempty"`
}

// verifyRequest is one input as the drivers read it.
type verifyRequest struct {
	Headers [][2]string `json:"headers"`
	BodyB64 string      `json:"body_b64"`
	Secret  string      `json:"secret"`
	Now     int64       `json:"now"`
}

func (c verifyCase) request(t testing.TB) verifyRequest {
	body := []byte(nil)
	if c.Body != nil {
		body = []byte(*c.Body)
	} else {
		var err error
		if body, err = base64.StdEncoding.DecodeString(c.BodyB64); err != nil {
			t.Fatalf("%s: body_b64: %v", c.Name, err)
		}
	}
	r := verifyRequest{BodyB64: base64.StdEncoding.EncodeToString(body), Secret: c.Secret, Now: c.Now}
	for _, h := range c.Headers {
		if c.MAC != nil {
			h[1] = expandMAC(h[1], c.MAC.Key, c.MAC.T, body)
		}
		r.Headers = append(r.Headers, h)
	}
	return r
}

// expandMAC replaces the corpus's placeholders by the HMAC-SHA256 of
// "<t>.<body>" keyed by key: {mac} (hex), {MAC} (upper-case hex), {mac63}
// (its first 63 digits) and {macspaced} (its bytes between spaces).
func expandMAC(v, key, ts string, body []byte) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(ts + "."))
	m.Write(body)
	mac := hex.EncodeToString(m.Sum(nil))
	var spaced []string
	for i := 0; i < len(mac); i += 2 {
		spaced = append(spaced, mac[i:i+2])
	}
	return strings.NewReplacer("{mac}", mac, "{MAC}", strings.ToUpper(mac), "{mac63}", mac[:63],
		"{macspaced}", strings.Join(spaced, " ")).Replace(v)
}

// goVerdict is this package's verdict.
func goVerdict(r verifyRequest) (v verdict) {
	defer func() {
		if p := recover(); p != nil {
			v = verdict{Verdict: "panic", Error: fmt.Sprint(p)}
		}
	}()
	h := http.Header{}
	for _, kv := range r.Headers {
		h.Add(kv[0], kv[1])
	}
	body, _ := base64.StdEncoding.DecodeString(r.BodyB64)
	ev, err := hostgate.VerifyWebhook(h, body, r.Secret, hostgate.WithClock(func() time.Time { return time.Unix(r.Now, 0) }))
	if err != nil {
		if ve, ok := errors.AsType[*hostgate.WebhookVerificationError](err); ok {
			return verdict{Verdict: ve.Reason}
		}
		return verdict{Verdict: "error", Error: err.Error()}
	}
	return verdict{Verdict: "accept", Event: ev.Event, DeliveryID: ev.DeliveryID, NewSecretKey: ev.NewSecretKey}
}

func loadVerifyCorpus(t testing.TB) []verifyCase {
	files, err := filepath.Glob(filepath.Join(verifyCorpusDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in %s (%v)", verifyCorpusDir, err)
	}
	var all []verifyCase
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []verifyCase
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range cases {
			cases[i].Name = filepath.Base(f) + ": " + cases[i].Name
		}
		all = append(all, cases...)
	}
	return all
}

func TestVerifyCorpus(t *testing.T) {
	cases := loadVerifyCorpus(t)
	verdicts := map[string]int{}
	for _, c := range cases {
		got := goVerdict(c.request(t))
		if got != c.Want {
			t.Errorf("%s:\n got  %+v\n want %+v", c.Name, got, c.Want)
		}
		verdicts[c.Want.Verdict]++
	}
	// The corpus covers every verdict.
	for _, v := range []string{"accept", "malformed", "signature", "stale"} {
		if verdicts[v] < 3 {
			t.Errorf("the corpus has %d %s cases", verdicts[v], v)
		}
	}
	t.Logf("%d cases: %v", len(cases), verdicts)
}

// verifierProcess is a long-lived driver: one JSON line in, one out.
type verifierProcess struct {
	name   string
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
}

func startVerifier(t testing.TB, name string, args ...string) *verifierProcess {
	if _, err := exec.LookPath(args[0]); err != nil {
		skipOrFailSDK(t, "%s is not installed: the %s verifier cannot run", args[0], name)
	}
	cmd := exec.Command(args[0], args[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &verifierProcess{name: name, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16), stderr: &bytes.Buffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Wait()
	})
	return p
}

func (p *verifierProcess) verdict(t testing.TB, r verifyRequest) verdict {
	b, _ := json.Marshal(r)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("%s verifier: write: %v\n%s", p.name, err, p.stderr)
	}
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("%s verifier: read: %v\n%s", p.name, err, p.stderr)
	}
	var v verdict
	if err := json.Unmarshal(line, &v); err != nil {
		t.Fatalf("%s verifier: %q: %v", p.name, line, err)
	}
	return v
}

// skipOrFailSDK skips a test that needs a tool this machine lacks, and
// fails it under CI (CI=true), where python3 and the built TypeScript SDK
// must be there (make test: test-sdk builds sdk/typescript/dist first).
func skipOrFailSDK(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf("skipping: "+format, args...)
}

// startVerifiers starts the Python and the Node driver, once for the whole
// test or fuzz run (per fuzzing worker process).
func startVerifiers(t testing.TB) []*verifierProcess {
	if _, err := os.Stat("../../typescript/dist/index.js"); err != nil {
		skipOrFailSDK(t, "the TypeScript SDK is not built: npm --prefix sdk/typescript ci && npm --prefix sdk/typescript run build")
	}
	return []*verifierProcess{
		startVerifier(t, "python", "python3", filepath.Join(verifyCorpusDir, "driver.py")),
		startVerifier(t, "typescript", "node", filepath.Join(verifyCorpusDir, "driver.mjs")),
	}
}

// The fuzz input's fixed clock: now is fuzzBase + the input's delta.
const fuzzBase = 1767268830

// fuzzRequest builds the request of one fuzz input. With sign, "{mac}" in
// the signature becomes the right MAC over "<ts>.<body>" keyed by secret,
// so inputs get past the signature check and reach the body's checks. The
// request goes through JSON as it will to the drivers, so that all three
// read the same strings (invalid UTF-8 becomes U+FFFD).
func fuzzRequest(t testing.TB, sig, ts, event, delivery string, body []byte, secret string, delta int32, sign bool) verifyRequest {
	if sign {
		sig = expandMAC(sig, secret, ts, body)
	}
	r := verifyRequest{Headers: [][2]string{{hostgate.HeaderWebhookEvent, event}, {hostgate.HeaderWebhookDelivery, delivery},
		{hostgate.HeaderWebhookSignature, sig}, {hostgate.HeaderWebhookTimestamp, ts}},
		BodyB64: base64.StdEncoding.EncodeToString(body), Secret: secret, Now: fuzzBase + int64(delta)}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var same verifyRequest
	if err := json.Unmarshal(b, &same); err != nil {
		t.Fatal(err)
	}
	return same
}

// TestVerifyCorpusAcrossLanguages runs the corpus through the drivers too:
// the fuzz target's plumbing, checked on known answers.
func TestVerifyCorpusAcrossLanguages(t *testing.T) {
	procs := startVerifiers(t)
	cases := loadVerifyCorpus(t)
	agreed, accepted := 0, 0
	for _, c := range cases {
		r := c.request(t)
		same := goVerdict(r) == c.Want
		for _, p := range procs {
			if got := p.verdict(t, r); got != c.Want {
				t.Errorf("%s, %s:\n got  %+v\n want %+v", p.name, c.Name, got, c.Want)
				same = false
			}
		}
		if same {
			agreed++
			if c.Want.Verdict == "accept" {
				accepted++
			}
		}
	}
	battery.Report(t, "T05", "Go, Python and TypeScript verifiers agree on %d/%d corpus cases (%d accepted by all three, the rest refused with the same reason)",
		agreed, len(cases), accepted)
}

func FuzzVerifierParity(f *testing.F) {
	// Seeds beyond testdata/fuzz/FuzzVerifierParity: the corpus's signed
	// cases in the fuzz target's shape.
	bodyA := `{"event":"host.l1_config_updated","delivery_id":"d1","data":{"bid":1,"secret_key":"new","url":"u"}}`
	bodyB := `{"event":"host.l1_config.updated","delivery_id":"wd_d1","after":{"bid":1,"secret_key":"new","report_url":"u"}}`
	bodyJ := `{"id":"j1","type":"job.finished","created_at":"2026-01-05T10:00:00Z","data":{"id":"j1"}}`
	f.Add("t=1767268830,v1={mac}", "1767268830", hostgate.WebhookEventA, "d1", []byte(bodyA), "s", int32(0), true)
	f.Add("sha256={mac}", "1767268830", hostgate.WebhookEventB, "wd_d1", []byte(bodyB), "s", int32(-300), true)
	f.Add("t=1767268830,v1={mac}", "1767268830", hostgate.WebhookEventJobFinished, "j1", []byte(bodyJ), "whsec_x", int32(300), true)
	f.Add("t=--5,v1={mac}", "--5", hostgate.WebhookEventA, "d1", []byte(bodyA), "s", int32(0), true)
	f.Add("sha256={mac}", "²", hostgate.WebhookEventB, "wd_d1", []byte(bodyB), "s", int32(0), true)
	f.Add("sha256={mac}", "1767268830", hostgate.WebhookEventB, "d1", []byte(strings.ReplaceAll(bodyB, "wd_d1", "d1")), "s", int32(0), true)
	f.Add("t=1767268830,v1={mac}", "1767268830", hostgate.WebhookEventA, "d1", []byte(bodyA), "", int32(0), true)
	procs := startVerifiers(f)
	f.Fuzz(func(t *testing.T, sig, ts, event, delivery string, body []byte, secret string, delta int32, sign bool) {
		r := fuzzRequest(t, sig, ts, event, delivery, body, secret, delta, sign)
		want := goVerdict(r)
		for _, p := range procs {
			if got := p.verdict(t, r); !reflect.DeepEqual(got, want) {
				in, _ := json.Marshal(r)
				t.Fatalf("%s and Go differ on %s:\n %-10s %+v\n %-10s %+v", p.name, in, p.name, got, "go", want)
			}
		}
	})
}
