package firstboot

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/agent/install"
	"hostgate/internal/agentproto"
)

// fakeClock advances only when the poll loop waits.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// script is a Source whose n-th fetch returns docs[n] (the last one
// repeated), recording when each fetch happened.
type script struct {
	clock *fakeClock
	docs  [][]byte
	errs  []error
	at    []time.Time
}

func (s *script) Name() string { return "test source" }

func (s *script) Fetch(context.Context) ([]byte, error) {
	n := len(s.at)
	s.at = append(s.at, s.clock.Now())
	var err error
	if len(s.errs) > 0 {
		err = s.errs[min(n, len(s.errs)-1)]
	}
	if len(s.docs) == 0 {
		return nil, err
	}
	return s.docs[min(n, len(s.docs)-1)], err
}

const (
	testHostID = "0b8f6a52-2d0e-4d3e-9a57-1f8c2d9e7b11"
	testSecret = "00112233445566778899aabbccddeeff"
	testToken  = "tok-Yt3ZDoZ1m0w8kq1Y2gQv0r2Xw5wV9b5g"
	testLogon  = "logon-password-0123456789"
)

var (
	testSeedBytes = bytes.Repeat([]byte{5}, 32)
	testSeed      = base64.StdEncoding.EncodeToString(testSeedBytes)
	testPub       = base64.StdEncoding.EncodeToString(ed25519.NewKeyFromSeed(testSeedBytes).Public().(ed25519.PublicKey))
)

func payload(edit func(d map[string]any)) []byte {
	d := map[string]any{"schema_version": 1, "hub": map[string]any{
		"host_id": testHostID, "bid": 42, "secret_key": testSecret, "install_token": testToken,
		"agent_privkey_seed": testSeed, "agent_pubkey": testPub,
		"api_endpoint": "https://hub.example.com",
	}}
	if edit != nil {
		edit(d)
	}
	b, _ := json.Marshal(d)
	return b
}

func hub(d map[string]any) map[string]any { return d["hub"].(map[string]any) }

// recorder is an Installer that records its input.
type recorder struct {
	calls []Install
	code  int
}

func (r *recorder) install(in Install, stdout, _ io.Writer) int {
	r.calls = append(r.calls, in)
	return r.code
}

type result struct {
	code           int
	stdout, stderr string
	failure        Failure
}

func runWith(t *testing.T, opts Options, deps Deps) result {
	t.Helper()
	var out, errb bytes.Buffer
	deps.Stdout, deps.Stderr = &out, &errb
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	r := result{code: Run(context.Background(), opts, deps), stdout: out.String(), stderr: errb.String()}
	if r.stderr != "" {
		if err := json.Unmarshal([]byte(strings.TrimSpace(r.stderr)), &r.failure); err != nil {
			t.Fatalf("stderr is not one JSON object: %q", r.stderr)
		}
		if r.failure.Exit != r.code {
			t.Errorf("reported exit %d, returned %d", r.failure.Exit, r.code)
		}
	}
	for _, secret := range []string{testSecret, testToken, testSeed, testLogon} {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("output shows a secret:\n%s\n%s", r.stdout, r.stderr)
		}
	}
	return r
}

func TestPollsEveryTwoSecondsUntilTheVariantTimeout(t *testing.T) {
	for _, tc := range []struct {
		variant string
		polls   int
		timeout time.Duration
	}{
		{VariantSimple, 91, 180 * time.Second},   // at 0, 2, …, 180 s
		{VariantAutologon, 31, 60 * time.Second}, // at 0, 2, …, 60 s
	} {
		t.Run(tc.variant, func(t *testing.T) {
			clock := newFakeClock()
			src := &script{clock: clock}
			rec := &recorder{}
			r := runWith(t, Options{Variant: tc.variant, Source: src},
				Deps{Clock: clock, Install: rec.install, AutoLogon: &fakeLogon{}})
			if r.code != ExitTimeout || r.failure.Code != "config_timeout" || !strings.Contains(r.failure.Msg, "within "+tc.timeout.String()) {
				t.Fatalf("exit %d, %+v", r.code, r.failure)
			}
			if len(src.at) != tc.polls {
				t.Fatalf("%d polls, want %d", len(src.at), tc.polls)
			}
			for i, at := range src.at {
				if want := src.at[0].Add(time.Duration(i) * PollInterval); !at.Equal(want) {
					t.Fatalf("poll %d at %v, want %v", i, at.Sub(src.at[0]), want.Sub(src.at[0]))
				}
			}
			if len(rec.calls) != 0 {
				t.Error("installed without a configuration")
			}
		})
	}
}

func TestTimeoutNamesTheLastSourceError(t *testing.T) {
	clock := newFakeClock()
	src := &script{clock: clock, errs: []error{errors.New("connection refused")}}
	r := runWith(t, Options{Source: src, Timeout: 4 * time.Second}, Deps{Clock: clock, Install: (&recorder{}).install})
	if r.code != ExitTimeout || !strings.Contains(r.failure.Msg, "connection refused") || len(src.at) != 3 {
		t.Fatalf("exit %d, %d polls, %+v", r.code, len(src.at), r.failure)
	}
}

func TestInstallsOnceThePayloadAppears(t *testing.T) {
	clock := newFakeClock()
	src := &script{clock: clock, docs: [][]byte{nil, nil, []byte("  \n"), payload(func(d map[string]any) {
		d["cloud"] = map[string]any{"region": "x"}
		hub(d)["listen_port"] = 24000
	})}}
	rec := &recorder{}
	state := t.TempDir()
	r := runWith(t, Options{Source: src, StateDir: state, Prefix: "/opt/x", Service: "detached"},
		Deps{Clock: clock, Install: rec.install})
	if r.code != 0 || len(rec.calls) != 1 || len(src.at) != 4 {
		t.Fatalf("exit %d, %d installs, %d polls; stderr %s", r.code, len(rec.calls), len(src.at), r.stderr)
	}
	got := rec.calls[0]
	want := agentproto.PayloadHub{Issued: agentproto.Issued{HostID: testHostID, BID: 42, SecretKey: testSecret, InstallToken: testToken,
		AgentPrivkeySeed: testSeed, AgentPubkey: testPub, APIEndpoint: "https://hub.example.com",
		WSURL: "wss://hub.example.com/v1/internal/agent/ws", ListenPort: 24000}}
	if got.Hub != want || got.StateDir != state || got.Prefix != "/opt/x" || got.Service != "detached" {
		t.Errorf("installer got %+v\nwant hub %+v", got, want)
	}
}

func TestInstallerExitCodePassesThrough(t *testing.T) {
	clock := newFakeClock()
	src := &script{clock: clock, docs: [][]byte{payload(nil)}}
	r := runWith(t, Options{Source: src}, Deps{Clock: clock, Install: (&recorder{code: install.ExitService}).install})
	if r.code != install.ExitService {
		t.Fatalf("exit %d, want the installer's %d", r.code, install.ExitService)
	}
}

func TestAlreadyInstalledExitsAtOnce(t *testing.T) {
	state := t.TempDir()
	if err := writeMarker(state, testHostID, time.Now()); err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	src := &script{clock: clock, docs: [][]byte{payload(nil)}}
	rec := &recorder{}
	for _, variant := range []string{VariantSimple, VariantAutologon} {
		r := runWith(t, Options{Variant: variant, Source: src, StateDir: state},
			Deps{Clock: clock, Install: rec.install, AutoLogon: &fakeLogon{}})
		if r.code != 0 || !strings.Contains(r.stdout, "already installed") {
			t.Fatalf("%s: exit %d, stdout %q", variant, r.code, r.stdout)
		}
	}
	if len(src.at) != 0 || len(rec.calls) != 0 {
		t.Errorf("with install.done: %d polls, %d installs; want none", len(src.at), len(rec.calls))
	}
}

func TestRefusesAnInvalidPayloadWithExit3(t *testing.T) {
	big := payload(func(d map[string]any) { d["pad"] = strings.Repeat("x", 1024) })
	for _, tc := range []struct {
		name, code, reason string
		doc                []byte
	}{
		{"over 1 KB", "invalid_payload", "must be under 1024 bytes", big},
		{"cloud-config", "invalid_payload", "begins with '#'", append([]byte("#cloud-config\n"), payload(nil)...)},
		{"no secret key", "missing_field", "hub.secret_key is missing", payload(func(d map[string]any) { delete(hub(d), "secret_key") })},
		{"no seed", "missing_field", "hub.agent_privkey_seed is missing", payload(func(d map[string]any) { delete(hub(d), "agent_privkey_seed") })},
		{"not json", "invalid_payload", "not valid JSON", []byte(`{"schema_version":1,`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			src := &script{clock: clock, docs: [][]byte{tc.doc}}
			rec := &recorder{}
			r := runWith(t, Options{Source: src}, Deps{Clock: clock, Install: rec.install})
			if r.code != ExitConfig || r.failure.Code != tc.code || !strings.Contains(r.failure.Msg, tc.reason) ||
				!strings.Contains(r.failure.Msg, "from test source") {
				t.Fatalf("exit %d, %+v; want 3 %s with %q", r.code, r.failure, tc.code, tc.reason)
			}
			// Refused once the same document was read twice.
			if len(src.at) != 2 || len(rec.calls) != 0 {
				t.Errorf("%d polls, %d installs", len(src.at), len(rec.calls))
			}
		})
	}
}

func TestHalfWrittenDocumentIsReadAgain(t *testing.T) {
	clock := newFakeClock()
	full := payload(nil)
	src := &script{clock: clock, docs: [][]byte{full[:40], full}}
	rec := &recorder{}
	if r := runWith(t, Options{Source: src}, Deps{Clock: clock, Install: rec.install}); r.code != 0 || len(rec.calls) != 1 {
		t.Fatalf("exit %d, %+v", r.code, r.failure)
	}
}

func TestInvalidDocumentAtTheDeadlineIsExit3(t *testing.T) {
	clock := newFakeClock()
	src := &script{clock: clock, docs: [][]byte{nil, []byte("#!/bin/sh")}}
	r := runWith(t, Options{Source: src, Timeout: 2 * time.Second}, Deps{Clock: clock, Install: (&recorder{}).install})
	if r.code != ExitConfig || len(src.at) != 2 {
		t.Fatalf("exit %d after %d polls, %+v", r.code, len(src.at), r.failure)
	}
}

type fakeLogon struct {
	user, password string
	err            error
}

func (f *fakeLogon) Configure(user, password string) error {
	f.user, f.password = user, password
	return f.err
}

func TestAutologonVariant(t *testing.T) {
	withLogon := payload(func(d map[string]any) { d["autologon"] = map[string]any{"password": testLogon} })
	t.Run("configures logon, then installs", func(t *testing.T) {
		clock := newFakeClock()
		logon, rec := &fakeLogon{}, &recorder{}
		r := runWith(t, Options{Variant: VariantAutologon, Source: &script{clock: clock, docs: [][]byte{withLogon}}},
			Deps{Clock: clock, Install: rec.install, AutoLogon: logon})
		if r.code != 0 || logon.user != "Administrator" || logon.password != testLogon || len(rec.calls) != 1 {
			t.Fatalf("exit %d, logon %q, %d installs, %s", r.code, logon.user, len(rec.calls), r.stderr)
		}
	})
	t.Run("payload without autologon", func(t *testing.T) {
		clock := newFakeClock()
		logon, rec := &fakeLogon{}, &recorder{}
		r := runWith(t, Options{Variant: VariantAutologon, Source: &script{clock: clock, docs: [][]byte{payload(nil)}}},
			Deps{Clock: clock, Install: rec.install, AutoLogon: logon})
		if r.code != ExitConfig || r.failure.Code != "missing_field" || !strings.Contains(r.failure.Msg, "autologon.password is missing") ||
			logon.user != "" || len(rec.calls) != 0 {
			t.Fatalf("exit %d, %+v", r.code, r.failure)
		}
	})
	t.Run("the simple variant ignores autologon", func(t *testing.T) {
		clock := newFakeClock()
		rec := &recorder{}
		r := runWith(t, Options{Source: &script{clock: clock, docs: [][]byte{withLogon}}}, Deps{Clock: clock, Install: rec.install})
		if r.code != 0 || len(rec.calls) != 1 {
			t.Fatalf("exit %d", r.code)
		}
	})
	t.Run("logon cannot be configured", func(t *testing.T) {
		clock := newFakeClock()
		logon, rec := &fakeLogon{err: errors.New("access denied")}, &recorder{}
		r := runWith(t, Options{Variant: VariantAutologon, Source: &script{clock: clock, docs: [][]byte{withLogon}}},
			Deps{Clock: clock, Install: rec.install, AutoLogon: logon})
		if r.code != ExitOther || r.failure.Code != "autologon_failed" || len(rec.calls) != 0 {
			t.Fatalf("exit %d, %+v", r.code, r.failure)
		}
	})
	if runtime.GOOS != "windows" {
		t.Run("refused outside Windows before polling", func(t *testing.T) {
			clock := newFakeClock()
			src := &script{clock: clock, docs: [][]byte{withLogon}}
			r := runWith(t, Options{Variant: VariantAutologon, Source: src}, Deps{Clock: clock, Install: (&recorder{}).install})
			if r.code != ExitOther || r.failure.Code != "unsupported" || !strings.Contains(r.failure.Msg, "Windows only") || len(src.at) != 0 {
				t.Fatalf("exit %d, %+v, %d polls", r.code, r.failure, len(src.at))
			}
		})
	}
}

func TestDefaultAddresses(t *testing.T) {
	for _, tc := range []struct {
		name, api, ws, def string
		wantAPI, wantWS    string
		fail               bool
	}{
		{"both given", "https://a.example", "wss://b.example/v1/internal/agent/ws", "", "https://a.example", "wss://b.example/v1/internal/agent/ws", false},
		{"ws from api", "https://h.example/base/", "", "", "https://h.example/base/", "wss://h.example/base/v1/internal/agent/ws", false},
		{"ws from http api", "http://127.0.0.1:8080", "", "", "http://127.0.0.1:8080", "ws://127.0.0.1:8080/v1/internal/agent/ws", false},
		{"api from ws", "", "wss://h.example/v1/internal/agent/ws", "", "https://h.example", "wss://h.example/v1/internal/agent/ws", false},
		{"default", "", "", "https://def.example", "https://def.example", "wss://def.example/v1/internal/agent/ws", false},
		{"default unused", "https://a.example", "", "https://def.example", "https://a.example", "wss://a.example/v1/internal/agent/ws", false},
		{"none", "", "", "", "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			doc := payload(func(d map[string]any) {
				delete(hub(d), "api_endpoint")
				if tc.api != "" {
					hub(d)["api_endpoint"] = tc.api
				}
				if tc.ws != "" {
					hub(d)["ws_url"] = tc.ws
				}
			})
			rec := &recorder{}
			r := runWith(t, Options{Source: &script{clock: clock, docs: [][]byte{doc}}, DefaultAPIEndpoint: tc.def},
				Deps{Clock: clock, Install: rec.install})
			if tc.fail {
				if r.code != ExitConfig || !strings.Contains(r.failure.Msg, "no default address") {
					t.Fatalf("exit %d, %+v", r.code, r.failure)
				}
				return
			}
			if r.code != 0 || rec.calls[0].Hub.APIEndpoint != tc.wantAPI || rec.calls[0].Hub.WSURL != tc.wantWS {
				t.Fatalf("exit %d, addresses %q %q", r.code, rec.calls[0].Hub.APIEndpoint, rec.calls[0].Hub.WSURL)
			}
		})
	}
}

func TestParseArgs(t *testing.T) {
	o, err := ParseArgs([]string{"--variant", "autologon", "--source", "file:/tmp/p.json", "--timeout", "5s",
		"--default-api-endpoint", "https://hub.example.com", "--state-dir", "/s"})
	if err != nil || o.Variant != VariantAutologon || o.Timeout != 5*time.Second || o.StateDir != "/s" ||
		o.Source.Name() != "file /tmp/p.json" || o.DefaultAPIEndpoint != "https://hub.example.com" {
		t.Fatalf("%+v, %v", o, err)
	}
	if o, err := ParseArgs(nil); err != nil || o.Variant != VariantSimple || o.Source.Name() != Auto(nil).Name() {
		t.Fatalf("defaults: %+v, %v", o, err)
	}
	for _, bad := range [][]string{
		{"--variant", "x"}, {"--source", "ftp"}, {"--source", "file:"}, {"--timeout", "-1s"},
		{"--default-api-endpoint", "hub.example.com"}, {"--source", "auto", "--metadata-url", "http://x"}, {"extra"},
	} {
		if _, err := ParseArgs(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestMainUsageErrorIsExit1(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"--variant", "x"}, &out, &errb); code != ExitOther || !strings.Contains(errb.String(), `"code":"invalid_argument"`) {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	out.Reset()
	if code := Main([]string{"--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "2 no configuration appeared in time") {
		t.Fatalf("help: exit %d, %q", code, out.String())
	}
}

func TestMainReadsALocalFile(t *testing.T) {
	// The real command end to end up to the installer: an invalid file is
	// refused with 3, a missing one times out with 2.
	dir := t.TempDir()
	file := filepath.Join(dir, "provisioning.json")
	if err := os.WriteFile(file, payload(func(d map[string]any) { delete(hub(d), "secret_key") }), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main([]string{"--source", "file:" + file, "--state-dir", filepath.Join(dir, "state"), "--timeout", "1ms"}, &out, &errb)
	if code != ExitConfig || !strings.Contains(errb.String(), "hub.secret_key is missing") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	code = Main([]string{"--source", "file:" + filepath.Join(dir, "absent.json"), "--state-dir", filepath.Join(dir, "state"), "--timeout", "1ms"}, &out, &errb)
	if code != ExitTimeout || !strings.Contains(errb.String(), `"code":"config_timeout"`) {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

func TestMainPrintsTheScripts(t *testing.T) {
	for _, kind := range []string{"sh", "ps1"} {
		var out, errb bytes.Buffer
		want, _ := Scripts.ReadFile("scripts/first-boot." + kind)
		if code := Main([]string{"--print-script", kind}, &out, &errb); code != 0 || out.String() != string(want) || len(want) == 0 {
			t.Errorf("%s: exit %d, %d bytes", kind, code, out.Len())
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"--print-script", "bat"}, &out, &errb); code != ExitOther || out.Len() != 0 {
		t.Errorf("bat: exit %d, %q", code, out.String())
	}
}
