package l1gate_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/battery"
	"hostgate/internal/battery/leak"
	"hostgate/internal/hubtest"
	"hostgate/internal/l1"
)

const invalidAnswer = `{"code":7,"data":null,"msg":"invalid message"}`

// l1Host is a host as a legacy client knows it: its bid and secret key.
type l1Host struct {
	BID int64
	Key string
}

// gatewayClient posts to a hub's /gateway from source addresses of its
// choosing (the hub trusts 127.0.0.1's X-Forwarded-For), so that each
// check has a rate window of its own.
type gatewayClient struct {
	h    *hubtest.Hub
	http *http.Client
	next atomic.Int64
}

// answer is what a sender sees of a response: status, headers but Date
// and X-Request-Id (a fresh random id), body.
type answer struct {
	Status int
	Header http.Header
	Body   string
}

func (a answer) String() string { return fmt.Sprintf("%d %v %s", a.Status, a.Header, a.Body) }

func (a answer) same(b answer) bool {
	return a.Status == b.Status && a.Body == b.Body && fmt.Sprint(a.Header) == fmt.Sprint(b.Header)
}

// address returns a source address no other check uses.
func (g *gatewayClient) address() string {
	n := g.next.Add(1)
	return fmt.Sprintf("198.18.%d.%d", n/250, 1+n%250)
}

// post sends body for bid from ip; chunked leaves out Content-Length.
func (g *gatewayClient) post(t testing.TB, ip string, bid int64, body []byte, chunked bool) answer {
	t.Helper()
	var r io.Reader = bytes.NewReader(body)
	if chunked {
		r = io.MultiReader(r) // no length known to net/http: sent chunked
	}
	req, err := http.NewRequest("POST", fmt.Sprintf("%s/gateway?bid=%d", g.h.URL, bid), r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("X-Forwarded-For", ip)
	resp, err := g.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	h := resp.Header.Clone()
	h.Del("Date")
	// Every answer of the hub carries a fresh random request id: it
	// depends on nothing sent, but differs from one answer to the next.
	if id := h.Get("X-Request-Id"); len(id) != 24 {
		t.Fatalf("X-Request-Id %q, want 24 hex digits", id)
	}
	h.Del("X-Request-Id")
	return answer{Status: resp.StatusCode, Header: h, Body: string(b)}
}

// seal encrypts plain as the L1 cipher does under key; raw leaves out the
// padding (plain is then whole blocks).
func seal(key string, plain []byte, raw bool) []byte {
	block, err := aes.NewCipher([]byte(key))
	if err != nil {
		panic(err)
	}
	buf := bytes.Clone(plain)
	if !raw {
		p := aes.BlockSize - len(buf)%aes.BlockSize
		buf = append(buf, bytes.Repeat([]byte{byte(p)}, p)...)
	}
	cipher.NewCBCEncrypter(block, []byte(key[:16])).CryptBlocks(buf, buf)
	return buf
}

func b64(b []byte) []byte { return []byte(base64.StdEncoding.EncodeToString(b)) }

// message is a fresh, valid request for host, encrypted under key.
func message(t testing.TB, host l1Host, key string) []byte {
	t.Helper()
	c, err := l1.NewCodec(host.BID, key)
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Encode(l1.NewRequest(agentproto.CtlStrRd, agentproto.ControlArgs{Path: "/etc/hostname"}, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(s)
}

func ciphertext(t testing.TB, body []byte) []byte {
	t.Helper()
	ct, err := base64.StdEncoding.DecodeString(string(body))
	if err != nil {
		t.Fatal(err)
	}
	return ct
}

// TestGatewayOverHTTP runs the legacy entry's security checks against one
// real hub (SQLite) over loopback: uniform refusals (T54), a padding
// oracle attacker (T55), C1‖0‖C1 (T56) and the handler's timing (T57,
// reported), then checks that the hub's goroutines are gone once it
// stopped (T65).
func TestGatewayOverHTTP(t *testing.T) {
	tr := leak.Check(t)
	h := hubtest.Start(t, hubtest.Embedded, hubtest.WithEnv("HOSTGATE_TRUSTED_PROXIES", "127.0.0.1/32"))
	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	g := &gatewayClient{h: h, http: &http.Client{Transport: transport, Timeout: 30 * time.Second}}
	user := h.Register(t)
	_, creds, err := h.Hosts.Create(t.Context(), user.User.ID, "l1", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	host := l1Host{BID: creds.BID, Key: creds.SecretKey}
	if h.Config.L1RatePerMin != 60 {
		t.Fatalf("HOSTGATE_L1_RATE_PER_MIN is %d; the checks below assume the default 60", h.Config.L1RatePerMin)
	}

	t.Run("T54_uniform_refusals", func(t *testing.T) { uniformRefusals(t, g, host) })
	t.Run("T55_padding_oracle_attacker", func(t *testing.T) { paddingOracle(t, g, host) })
	t.Run("T56_C1_0_C1", func(t *testing.T) { c1ZeroC1(t, g, host) })
	t.Run("T57_handler_timing", func(t *testing.T) { handlerTiming(t, g, host) })

	peak := tr.Note()
	tr.Then(func(r leak.Result) {
		battery.Report(t, "T65", "a hub (SQLite) over loopback: %d goroutines started with it running after the checks, none left %v after its stop (wait bound 10 s); leak checks without goleak (internal/battery/leak), race detector on in make test",
			peak, r.Settled.Round(time.Microsecond))
	})
}

// uniformRefusals (T54): the twelve failure classes of the battery get
// the same status, headers (but Date and the random X-Request-Id) and body, code 7.
func uniformRefusals(t *testing.T, g *gatewayClient, host l1Host) {
	good := message(t, host, host.Key)
	ct := ciphertext(t, good)
	plain := func(m map[string]any) []byte { b, _ := json.Marshal(m); return b }
	frame := map[string]any{"bid": host.BID, "control": 1 << 16, "args": map[string]any{"path": "/x"},
		"ts": time.Now().Unix(), "nonce": "uniform-0123456789"}
	cases := []struct {
		name    string
		bid     int64
		body    []byte
		chunked bool
	}{
		{"bad base64", host.BID, []byte("!!!!" + string(good[4:])), false},
		{"empty", host.BID, nil, false},
		{"length % 16 ≠ 0", host.BID, b64(ct[:len(ct)-3]), false},
		{"bad padding", host.BID, b64(seal(host.Key, append(bytes.Repeat([]byte{'x'}, 13), 2, 3, 3), true)), false},
		{"padding byte 0", host.BID, b64(seal(host.Key, append(plain(frame)[:16], append(bytes.Repeat([]byte{'x'}, 15), 0)...), true)), false},
		{"padding byte 17", host.BID, b64(seal(host.Key, append(bytes.Repeat([]byte{'x'}, 15), 17), true)), false},
		{"valid padding + garbage", host.BID, b64(seal(host.Key, []byte("\x00\xffnot a frame at all\x01"), false)), false},
		{"valid JSON + unknown control", host.BID, b64(seal(host.Key, plain(frame), false)), false},
		{"unknown host", host.BID + 7919, message(t, l1Host{BID: host.BID + 7919}, host.Key), false},
		{"wrong key", host.BID, message(t, host, "0123456789abcdef0123456789abcdef"), false},
		{"truncated", host.BID, b64(ct[:len(ct)-16]), false},
		{"oversized (chunked, 1 MiB + 4)", host.BID, bytes.Repeat([]byte("A"), l1.MaxBody+4), true},
	}
	ip := g.address()
	var first answer
	for i, c := range cases {
		a := g.post(t, ip, c.bid, c.body, c.chunked)
		if a.Status != http.StatusOK || a.Body != invalidAnswer {
			t.Errorf("%s: %s, want 200 %s", c.name, a, invalidAnswer)
		}
		if i == 0 {
			first = a
		} else if !a.same(first) {
			t.Errorf("%s: answer differs from %q's:\n%s\n%s", c.name, cases[0].name, a, first)
		}
	}
	// The documented exception (docs/l1.md §7, step 2): a Content-Length
	// over the hub's body cap is stopped before /gateway with 413; it
	// tells the sender only what it sent.
	if a := g.post(t, ip, host.BID, bytes.Repeat([]byte("A"), l1.MaxBody+4), false); a.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized with Content-Length: %s, want 413 (docs/l1.md §7)", a)
	}
	if !t.Failed() {
		battery.Report(t, "T54", "%d failure classes over HTTP: 1 distinct answer (status %d, %d headers but Date and the random X-Request-Id, body %s)",
			len(cases), first.Status, len(first.Header), first.Body)
	}
}

// paddingOracle (T55): a Vaudenay attacker with a captured ciphertext
// asks the live endpoint about each guess of the last byte of its second
// plaintext block (X ‖ C2, X = C1 with the guess folded into its last
// byte). The same attacker recovers the byte from a true padding oracle;
// from /gateway it learns nothing: every admitted guess gets the one
// answer, and the per-address budget (60 a minute, docs/l1.md §7) trips
// before a quarter of the guesses, after which nothing is decoded: the
// captured message itself is answered 429.
func paddingOracle(t *testing.T, g *gatewayClient, host l1Host) {
	captured := message(t, host, host.Key)
	ct := ciphertext(t, captured)
	if len(ct) < 32 {
		t.Fatalf("captured ciphertext of %d bytes", len(ct))
	}
	c1, c2 := ct[:16], ct[16:32]
	guess := func(gs byte) []byte {
		x := bytes.Clone(c1)
		x[15] ^= gs ^ 0x01 // decrypts C2's last byte to 0x01 when the guess is right
		return append(x, c2...)
	}
	// recover runs the attack against an oracle: the byte whose answer
	// stands out, if exactly one does.
	recoverByte := func(ask func([]byte) string) (byte, bool, map[string]int) {
		answers := map[string][]byte{}
		seen := map[string]int{}
		for gs := range 256 {
			a := ask(guess(byte(gs)))
			answers[a] = append(answers[a], byte(gs))
			seen[a]++
		}
		for _, gs := range answers {
			if len(gs) == 1 && len(answers) > 1 {
				return gs[0], true, seen
			}
		}
		return 0, false, seen
	}

	// A true padding oracle: the attacker works.
	block, _ := aes.NewCipher([]byte(host.Key))
	p2 := make([]byte, 16)
	block.Decrypt(p2, c2)
	for i := range p2 {
		p2[i] ^= c1[i]
	}
	oracle := func(msg []byte) string {
		buf := bytes.Clone(msg)
		cipher.NewCBCDecrypter(block, []byte(host.Key[:16])).CryptBlocks(buf, buf)
		p := int(buf[len(buf)-1])
		if p < 1 || p > 16 || !bytes.Equal(buf[len(buf)-p:], bytes.Repeat([]byte{byte(p)}, p)) {
			return "bad padding"
		}
		return "bad frame"
	}
	if got, ok, _ := recoverByte(oracle); !ok || got != p2[15] {
		t.Fatalf("against a padding oracle the attacker recovered %q (ok %v), want %q: the attacker is broken", got, ok, p2[15])
	}

	ip := g.address()
	admitted := 0
	_, ok, seen := recoverByte(func(msg []byte) string {
		a := g.post(t, ip, host.BID, b64(msg), false)
		if a.Status != http.StatusTooManyRequests {
			admitted++
		}
		return a.String()
	})
	if ok {
		t.Fatalf("the attacker recovered a byte from /gateway: answers %v", seen)
	}
	distinct := 0
	for a := range seen {
		if !strings.HasPrefix(a, "429 ") {
			distinct++
			if !strings.HasSuffix(a, invalidAnswer) {
				t.Errorf("an admitted guess was answered %s", a)
			}
		}
	}
	if distinct != 1 || admitted != 60 {
		t.Fatalf("%d distinct answers to %d admitted guesses; want 1 answer and 60 admitted (the per-address budget)", distinct, admitted)
	}
	if a := g.post(t, ip, host.BID, captured, false); a.Status != http.StatusTooManyRequests || a.Body != `{"code":7,"data":null,"msg":"rate limited"}` {
		t.Fatalf("the captured message after the budget tripped: %s, want 429", a)
	}
	battery.Report(t, "T55", "Vaudenay attacker, 256 guesses at one byte: recovers it from a true padding oracle; from /gateway 0 bytes (%d admitted guesses, 1 distinct answer, then 429: 60/min/address budget); no per-host budget or alert metric (docs/l1.md §7)",
		admitted)
}

// c1ZeroC1 (T56): C1 ‖ 0^16 ‖ C1 and its variants, made from a genuine
// message, are answered with the uniform refusal: no plaintext and no
// byte that depends on what they decrypt to.
func c1ZeroC1(t *testing.T, g *gatewayClient, host l1Host) {
	ct := ciphertext(t, message(t, host, host.Key))
	c1, zero := ct[:16], make([]byte, 16)
	cat := func(parts ...[]byte) []byte { return slices.Concat(parts...) }
	variants := map[string][]byte{
		"C1‖0‖C1":        cat(c1, zero, c1),
		"C1‖0‖C1‖rest":   cat(c1, zero, c1, ct[16:]),
		"C1‖C1":          cat(c1, c1),
		"0‖C1":           cat(zero, c1),
		"C1‖0‖C1‖0‖C1":   cat(c1, zero, c1, zero, c1),
		"0‖0‖C1 (IV=0)":  cat(zero, zero, c1),
		"C1 alone":       c1,
		"C1‖0‖C1 twice":  cat(c1, zero, c1, c1, zero, c1),
		"last block ‖ 0": cat(ct[len(ct)-16:], zero),
	}
	// What the variants decrypt to, which an answer must not carry.
	block, _ := aes.NewCipher([]byte(host.Key))
	var secrets [][]byte
	for _, v := range variants {
		buf := bytes.Clone(v)
		cipher.NewCBCDecrypter(block, []byte(host.Key[:16])).CryptBlocks(buf, buf)
		for i := 0; i+8 <= len(buf); i += 8 {
			secrets = append(secrets, buf[i:i+8])
		}
	}
	ip := g.address()
	var first answer
	n := 0
	for name, v := range variants {
		a := g.post(t, ip, host.BID, b64(v), false)
		if a.Status != http.StatusOK || a.Body != invalidAnswer {
			t.Errorf("%s: %s, want 200 %s", name, a, invalidAnswer)
		}
		if n > 0 && !a.same(first) {
			t.Errorf("%s: answer differs:\n%s\n%s", name, a, first)
		}
		if n == 0 {
			first = a
		}
		n++
		for _, s := range secrets {
			text := a.String()
			if strings.Contains(text, string(s)) || strings.Contains(text, fmt.Sprintf("%x", s)) ||
				strings.Contains(text, base64.StdEncoding.EncodeToString(s)[:8]) {
				t.Errorf("%s: the answer carries decrypted bytes %x", name, s)
			}
		}
	}
	if !t.Failed() {
		battery.Report(t, "T56", "%d variants of C1‖0^16‖C1: 1 answer, the uniform %s; none of their %d decrypted 8-byte pieces in it (raw, hex or base64)",
			n, first.Body, len(secrets))
	}
}

// handlerTiming (T57, the handler half, report only): over loopback,
// a valid padding with a bad frame and a bad padding take the same path;
// their median times are reported, not gated (the nightly run measures
// 10^5 of each).
func handlerTiming(t *testing.T, g *gatewayClient, host l1Host) {
	const n = 100 // of each; each request from its own address, so none is rate-limited
	goodPad := b64(seal(host.Key, []byte(`{"bid":1,"not":"a frame of this host"}`), false))
	badPad := b64(seal(host.Key, append([]byte(`{"bid":1,"not":"a frame of this host"}`), bytes.Repeat([]byte{0}, 10)...), true))
	var tg, tb []float64
	timeOne := func(body []byte) float64 {
		start := time.Now()
		a := g.post(t, g.address(), host.BID, body, false)
		d := time.Since(start)
		if a.Body != invalidAnswer {
			t.Fatalf("answer %s", a)
		}
		return float64(d.Microseconds())
	}
	for i := range n {
		if i%2 == 0 {
			tg = append(tg, timeOne(goodPad))
			tb = append(tb, timeOne(badPad))
		} else {
			tb = append(tb, timeOne(badPad))
			tg = append(tg, timeOne(goodPad))
		}
	}
	slices.Sort(tg)
	slices.Sort(tb)
	mg, mb := tg[n/2], tb[n/2]
	battery.Report(t, "T57", "handler over loopback, %d requests each (CI size; nightly 10^5): median valid-padding-bad-JSON %.0f µs vs bad padding %.0f µs (Δ %.1f %%, report only)",
		n, mg, mb, 100*math.Abs(mg-mb)/min(mg, mb))
}
