package l1gate

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/coord/inproc"
	"hostgate/internal/hosts"
	"hostgate/internal/l1"
	"hostgate/internal/operations"
)

const (
	keyA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	keyB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	bid  = int64(4821936602771)
)

// fakeStore holds candidates by bid; secrets are "sealed" as the plain key.
type fakeStore map[int64][]Candidate

func (f fakeStore) HostsByBID(_ context.Context, b int64) ([]Candidate, error) { return f[b], nil }

// memStore is a fakeStore with in-memory nonces.
type memStore struct {
	fakeStore
	*l1.MemoryNonces
}

func (memStore) PruneNonces(context.Context, time.Time, int) (int, error) { return 0, nil }

func withNonces(st fakeStore) memStore { return memStore{st, l1.NewMemoryNonces(1000)} }

// plainKeys opens a "sealed" secret that is the key itself.
type plainKeys struct{}

func (plainKeys) Open(sealed, _ []byte) ([]byte, error) { return sealed, nil }

// fakeRunner records calls and answers with result or err.
type fakeRunner struct {
	mu     sync.Mutex
	calls  []operations.Call
	result json.RawMessage
	err    error
}

func (r *fakeRunner) Run(_ context.Context, c operations.Call) (json.RawMessage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
	return r.result, r.err
}

// fakeAgents is the hosts' agents as the gateway reaches them: OpL1Nonce
// records the nonce in one memory per agent (as l1local.Scope would scope
// it), unless err or resp says otherwise.
type fakeAgents struct {
	mu     sync.Mutex
	nonces *l1.MemoryNonces
	sent   []agentproto.L1Nonce
	resp   *agentproto.Response // answered instead of recording, when set
	err    error
}

func newAgents() *fakeAgents { return &fakeAgents{nonces: l1.NewMemoryNonces(1000)} }

func (f *fakeAgents) Send(ctx context.Context, hostID, op string, args json.RawMessage, _ time.Duration) (agentproto.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if op != agentproto.OpL1Nonce {
		return agentproto.Response{}, fmt.Errorf("unexpected op %s", op)
	}
	n, err := agentproto.DecodeL1Nonce(args)
	if err != nil {
		return agentproto.Response{}, err
	}
	f.sent = append(f.sent, n)
	if f.err != nil {
		return agentproto.Response{}, f.err
	}
	if f.resp != nil {
		return *f.resp, nil
	}
	added, err := f.nonces.AddNonce(ctx, hostID+"/"+strconv.FormatInt(n.BID, 10), n.Nonce, time.Now(), time.Unix(n.ExpiresAt, 0))
	if err != nil {
		return agentproto.Response{}, err
	}
	res, _ := json.Marshal(agentproto.L1NonceResult{Recorded: added})
	return agentproto.Response{OK: true, Result: res}, nil
}

// holds records nonce on hostID's agent as its local listener would.
func (f *fakeAgents) holds(t *testing.T, hostID string, b int64, r l1.Request) {
	t.Helper()
	if _, err := f.nonces.AddNonce(context.Background(), hostID+"/"+strconv.FormatInt(b, 10), r.Nonce, time.Now(), r.NonceExpiry()); err != nil {
		t.Fatal(err)
	}
}

func candidate(host, user, key string) Candidate {
	return Candidate{HostID: host, UserID: user, Status: hosts.StatusOnline, OwnerActive: true, SecretSealed: []byte(key)}
}

func newService(t *testing.T, st fakeStore, run Runner, rate int) *Service {
	t.Helper()
	return newServiceWith(t, st, run, newAgents(), rate)
}

func newServiceWith(t *testing.T, st fakeStore, run Runner, agents Agents, rate int) *Service {
	t.Helper()
	c := inproc.New()
	t.Cleanup(func() { c.Close() })
	return New(withNonces(st), plainKeys{}, run, agents, c, rate, slog.New(slog.DiscardHandler))
}

func encode(t *testing.T, b int64, key string, r l1.Request) string {
	t.Helper()
	c, err := l1.NewCodec(b, key)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readReq(now time.Time) l1.Request {
	return l1.NewRequest(agentproto.CtlStrRd, agentproto.ControlArgs{Path: "/tmp/x"}, now)
}

// serve answers body for bid from one address and returns status and the
// answer's bytes as the route writes them.
func serve(s *Service, ip string, b int64, body string) (int, string) {
	st, resp := s.Serve(context.Background(), ip, strconv.FormatInt(b, 10), strings.NewReader(body))
	out, _ := json.Marshal(resp)
	return st, string(out)
}

const invalid = `{"code":7,"data":null,"msg":"invalid message"}`

func TestGatewayRunsControlAsOwner(t *testing.T) {
	run := &fakeRunner{result: json.RawMessage(`{"content":"hi"}`)}
	s := newService(t, fakeStore{bid: {candidate("h1", "u1", keyA)}}, run, 100)
	st, got := serve(s, "10.0.0.1", bid, encode(t, bid, keyA, readReq(time.Now())))
	if st != http.StatusOK || got != `{"code":0,"data":{"content":"hi"},"msg":"ok"}` {
		t.Fatalf("answer %d %s", st, got)
	}
	want := operations.Call{UserID: "u1", HostID: "h1", Controls: agentproto.CtlStrRd, Path: "/tmp/x"}
	if len(run.calls) != 1 || run.calls[0].UserID != want.UserID || run.calls[0].HostID != want.HostID ||
		run.calls[0].Controls != want.Controls || run.calls[0].Path != want.Path || run.calls[0].Route != "" || run.calls[0].APIKeyID != "" {
		t.Fatalf("calls %+v, want one %+v", run.calls, want)
	}
}

// TestGatewayRefusalsAreUniform: whatever is wrong, a sender without the
// key sees the same bytes and status, and nothing runs.
func TestGatewayRefusalsAreUniform(t *testing.T) {
	run := &fakeRunner{result: json.RawMessage(`null`)}
	banned := candidate("h2", "u2", keyB)
	banned.Status = hosts.StatusBanned
	suspended := candidate("h3", "u3", keyB)
	suspended.OwnerActive = false
	st := fakeStore{bid: {candidate("h1", "u1", keyA)}, bid + 1: {banned}, bid + 2: {suspended}}
	s := newService(t, st, run, 1000)
	now := time.Now()
	good := encode(t, bid, keyA, readReq(now))
	if code, got := serve(s, "ip", bid, good); code != 200 || !strings.HasPrefix(got, `{"code":0`) {
		t.Fatalf("first use: %d %s", code, got)
	}
	run.calls = nil
	corrupt := []byte(good)
	corrupt[10] ^= 'A' ^ 'B'
	stale := readReq(now.Add(-l1.MaxSkew - time.Minute))
	future := readReq(now.Add(l1.MaxSkew + time.Minute))
	cases := map[string]struct {
		bid  int64
		body string
	}{
		"wrong key":       {bid, encode(t, bid, keyB, readReq(now))},
		"corrupted":       {bid, string(corrupt)},
		"bad padding":     {bid, badPadding(t, keyA)},
		"not base64":      {bid, "%%%%"},
		"empty":           {bid, ""},
		"too long":        {bid, strings.Repeat("A", l1.MaxBody+4)},
		"unknown bid":     {bid + 99, encode(t, bid+99, keyA, readReq(now))},
		"other bid frame": {bid, encode(t, bid+99, keyA, readReq(now))},
		"replay":          {bid, good},
		"stale ts":        {bid, encode(t, bid, keyA, stale)},
		"future ts":       {bid, encode(t, bid, keyA, future)},
		"banned host":     {bid + 1, encode(t, bid+1, keyB, readReq(now))},
		"owner suspended": {bid + 2, encode(t, bid+2, keyB, readReq(now))},
	}
	for name, c := range cases {
		code, got := serve(s, "ip", c.bid, c.body)
		if code != http.StatusOK || got != invalid {
			t.Errorf("%s: %d %s, want 200 %s", name, code, got, invalid)
		}
	}
	for _, p := range []string{"", "abc", "-1", "0", "99999999999999999999"} {
		code, resp := s.Serve(context.Background(), "ip", p, strings.NewReader(good))
		if out, _ := json.Marshal(resp); code != 200 || string(out) != invalid {
			t.Errorf("bid %q: %d %s", p, code, out)
		}
	}
	if len(run.calls) != 0 {
		t.Fatalf("refused messages ran %d calls", len(run.calls))
	}
}

// badPadding is a well-formed ciphertext under key whose padding is wrong.
func badPadding(t *testing.T, key string) string {
	t.Helper()
	block, err := aes.NewCipher([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	plain := append([]byte(`{"bid":1}`), bytes.Repeat([]byte{0}, 23)...) // last byte 0: no valid padding
	cipher.NewCBCEncrypter(block, []byte(key[:16])).CryptBlocks(plain, plain)
	return base64.StdEncoding.EncodeToString(plain)
}

// TestGatewaySharedBID: two users' hosts with one bid are each reached
// with their own key, and never with the other's.
func TestGatewaySharedBID(t *testing.T) {
	run := &fakeRunner{result: json.RawMessage(`{}`)}
	s := newService(t, fakeStore{bid: {candidate("h1", "u1", keyA), candidate("h2", "u2", keyB)}}, run, 100)
	for _, k := range []string{keyB, keyA} {
		if code, got := serve(s, "ip", bid, encode(t, bid, k, readReq(time.Now()))); code != 200 || !strings.HasPrefix(got, `{"code":0`) {
			t.Fatalf("key %s: %d %s", k[:1], code, got)
		}
	}
	if len(run.calls) != 2 || run.calls[0].HostID != "h2" || run.calls[0].UserID != "u2" ||
		run.calls[1].HostID != "h1" || run.calls[1].UserID != "u1" {
		t.Fatalf("calls %+v", run.calls)
	}
}

func TestGatewayRateLimitPerAddress(t *testing.T) {
	s := newService(t, fakeStore{}, &fakeRunner{}, 3)
	for i := range 3 {
		if code, got := serve(s, "10.0.0.1", bid, "x"); code != 200 || got != invalid {
			t.Fatalf("request %d: %d %s", i, code, got)
		}
	}
	if code, got := serve(s, "10.0.0.1", bid, "x"); code != http.StatusTooManyRequests || got != `{"code":7,"data":null,"msg":"rate limited"}` {
		t.Fatalf("over the rate: %d %s", code, got)
	}
	if code, _ := serve(s, "10.0.0.2", bid, "x"); code != 200 {
		t.Fatalf("another address limited: %d", code)
	}
}

// TestGatewayFailuresSayWhy: after decoding, failures carry the client
// API's code and message; internal errors never leak.
func TestGatewayFailuresSayWhy(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{apperr.New("insufficient_balance", "the balance is too low"), "insufficient_balance: the balance is too low"},
		{apperr.New("host_offline", "not connected"), "host_offline: not connected"},
		{apperr.New("agent_timeout", "no answer"), "agent_timeout: no answer"},
		{apperr.New("invalid_body", "path is required"), "invalid_body: path is required"},
		{errors.New("db password=hunter2 broke"), "internal error"},
	} {
		s := newService(t, fakeStore{bid: {candidate("h1", "u1", keyA)}}, &fakeRunner{err: c.err}, 100)
		_, resp := s.Serve(context.Background(), "ip", strconv.FormatInt(bid, 10), strings.NewReader(encode(t, bid, keyA, readReq(time.Now()))))
		if resp.Code != l1.CodeFailure || resp.Msg != c.want || resp.Data != nil {
			t.Errorf("%v: %+v, want msg %q", c.err, resp, c.want)
		}
	}
}

// TestGatewayCarriesEveryLegacyControl: UPLOAD_FILE and CHANGE_WATCH_DIR
// go to the owner's raw control call like every legacy control; its
// answer, e.g. not_implemented for 512, is the code 7 message.
func TestGatewayCarriesEveryLegacyControl(t *testing.T) {
	for _, c := range []struct {
		ctl  int64
		err  error
		want l1.Response
	}{
		{agentproto.CtlUploadFile, apperr.New("not_implemented", "UPLOAD_FILE (512) is not implemented, like files/upload"),
			l1.Fail("not_implemented: UPLOAD_FILE (512) is not implemented, like files/upload")},
		{agentproto.CtlChangeWatchDir, nil, l1.OK(json.RawMessage(`{"dir":"/srv/in","previous":""}`))},
	} {
		run := &fakeRunner{err: c.err}
		if c.err == nil {
			run.result = json.RawMessage(`{"dir":"/srv/in","previous":""}`)
		}
		s := newService(t, fakeStore{bid: {candidate("h1", "u1", keyA)}}, run, 100)
		r := l1.NewRequest(c.ctl, agentproto.ControlArgs{Path: "/srv/in"}, time.Now())
		_, resp := s.Serve(context.Background(), "ip", strconv.FormatInt(bid, 10), strings.NewReader(encode(t, bid, keyA, r)))
		if resp.Code != c.want.Code || resp.Msg != c.want.Msg || string(resp.Data) != string(c.want.Data) {
			t.Errorf("control %d: %+v, want %+v", c.ctl, resp, c.want)
		}
		if len(run.calls) != 1 || run.calls[0].Controls != c.ctl || run.calls[0].Route != "" || run.calls[0].Path != "/srv/in" {
			t.Errorf("control %d: ran %+v", c.ctl, run.calls)
		}
	}
}

// TestGatewayCarriesOutOrchestration: 16384 and 32768 go to the owner's
// raw control call like any other operation (issue 18).
func TestGatewayCarriesOutOrchestration(t *testing.T) {
	run := &fakeRunner{}
	s := newService(t, fakeStore{bid: {candidate("h1", "u1", keyA)}}, run, 100)
	for _, ctl := range []int64{agentproto.CtlOrchestratedStart, agentproto.CtlOrchestratedShutdown} {
		r := l1.NewRequest(ctl, agentproto.ControlArgs{Path: "/srv/game"}, time.Now())
		_, resp := s.Serve(context.Background(), "ip", strconv.FormatInt(bid, 10), strings.NewReader(encode(t, bid, keyA, r)))
		if resp.Code != l1.CodeOK {
			t.Errorf("control %d: %+v", ctl, resp)
		}
	}
	if len(run.calls) != 2 || run.calls[0].Controls != agentproto.CtlOrchestratedStart || run.calls[1].Path != "/srv/game" {
		t.Fatalf("ran %+v", run.calls)
	}
}

// TestGatewayBodyIsBounded: Serve reads at most MaxBody+1 bytes.
func TestGatewayBodyIsBounded(t *testing.T) {
	s := newService(t, fakeStore{}, &fakeRunner{}, 100)
	r := &countingReader{}
	s.Serve(context.Background(), "ip", "1", io.LimitReader(r, 10*l1.MaxBody))
	if r.n > l1.MaxBody+1 {
		t.Fatalf("read %d bytes", r.n)
	}
}

type countingReader struct{ n int }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'A'
	}
	c.n += len(p)
	return len(p), nil
}

// TestGatewayLogsReasonNotSecrets: refusals are logged with the address
// and a reason category, never the body or a key.
func TestGatewayLogsReasonNotSecrets(t *testing.T) {
	var buf bytes.Buffer
	c := inproc.New()
	t.Cleanup(func() { c.Close() })
	s := New(withNonces(fakeStore{bid: {candidate("h1", "u1", keyA)}}), plainKeys{}, &fakeRunner{}, newAgents(), c, 100,
		slog.New(slog.NewTextHandler(&buf, nil)))
	wrong := encode(t, bid, keyB, readReq(time.Now()))
	serve(s, "198.51.100.7", bid, wrong)
	serve(s, "198.51.100.7", bid+5, wrong)
	out := buf.String()
	for _, want := range []string{"reason=undecodable", "reason=unknown_bid", "client_ip=198.51.100.7"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{wrong[:24], keyA, keyB} {
		if strings.Contains(out, secret) {
			t.Errorf("log shows %q:\n%s", secret, out)
		}
	}
	if strings.Contains(out, "level=ERROR") || strings.Contains(out, "level=WARN") {
		t.Errorf("refusals logged above info:\n%s", out)
	}
}

// pruneStore answers PruneNonces with full batches a given number of times.
type pruneStore struct {
	memStore
	full, calls int
}

func (p *pruneStore) PruneNonces(_ context.Context, _ time.Time, limit int) (int, error) {
	p.calls++
	if p.calls <= p.full {
		return limit, nil
	}
	return limit / 2, nil
}

// TestPruneNoncesIsBounded: pruning goes on while batches come back full,
// and stops after pruneBatches however far behind it is.
func TestPruneNoncesIsBounded(t *testing.T) {
	for _, c := range []struct{ full, want int }{{0, 1}, {2, 3}, {1 << 20, pruneBatches}} {
		st := &pruneStore{memStore: withNonces(fakeStore{}), full: c.full}
		c2 := inproc.New()
		t.Cleanup(func() { c2.Close() })
		s := New(st, plainKeys{}, &fakeRunner{}, newAgents(), c2, 1, slog.New(slog.DiscardHandler))
		if err := s.PruneNonces(context.Background()); err != nil {
			t.Fatal(err)
		}
		if st.calls != c.want {
			t.Errorf("%d full batches: %d statements, want %d", c.full, st.calls, c.want)
		}
	}
}
