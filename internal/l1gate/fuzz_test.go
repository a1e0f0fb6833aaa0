package l1gate

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/agentproto"
	"hostgate/internal/battery"
	"hostgate/internal/coord/inproc"
	"hostgate/internal/l1"
)

// fuzzNow is the gateway's clock in FuzzGateway, so that seeds made with
// it stay fresh on every run.
var fuzzNow = time.Unix(1767268800, 0)

// sealWith encrypts plain (padded here unless raw) as the L1 cipher does
// under key, for frames Encode would refuse to make.
func sealWith(key string, plain []byte, raw bool) []byte {
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

// allocBound is the most a request's answer may allocate: reading the
// body (at most l1.MaxBody+1 bytes, grown by doubling), its base64
// decoding and the frame's parse each take a bounded multiple of the
// bytes read, whatever was sent.
func allocBound(bodyLen int) uint64 {
	return 8*uint64(min(bodyLen, l1.MaxBody+1)) + 256<<10
}

// FuzzGateway (battery T58) feeds any bid parameter and body to the
// gateway's decrypt and dispatch (Service.Serve, with a host whose key is
// keyA): nothing panics; every body that does not decode under the
// host's key gets exactly the uniform answer and carries nothing out;
// one that decodes is carried out once (a second time it is a replay);
// and no request allocates more than allocBound of what was read, however
// large the body.
func FuzzGateway(f *testing.F) {
	run := &fakeRunner{result: json.RawMessage(`{"content":"hi"}`)}
	c := inproc.New()
	f.Cleanup(func() { c.Close() })
	s := New(withNonces(fakeStore{bid: {candidate("h1", "u1", keyA)}}), plainKeys{}, run, newAgents(), c, 1<<30,
		slog.New(slog.DiscardHandler))
	s.now = func() time.Time { return fuzzNow }
	codec, err := l1.NewCodec(bid, keyA)
	if err != nil {
		f.Fatal(err)
	}
	req := func(ctl int64, nonce string) l1.Request {
		return l1.Request{Control: ctl, Args: agentproto.ControlArgs{Path: "/tmp/x"}, TS: fuzzNow.Unix(), Nonce: nonce}
	}
	good := []byte(mustEncodeF(f, codec, req(agentproto.CtlStrRd, "fuzz-seed-nonce-0001")))
	ct, _ := base64.StdEncoding.DecodeString(string(good))
	c1 := ct[:16]
	frame := func(m map[string]any) []byte {
		b, _ := json.Marshal(m)
		return b64(sealWith(keyA, b, false))
	}
	bidText := strconv.FormatInt(bid, 10)
	for _, seed := range []struct {
		bid  string
		body []byte
	}{
		{bidText, good},
		{bidText, good}, // its replay
		{bidText, []byte(mustEncodeF(f, codec, req(agentproto.CtlExecShell, "fuzz-seed-nonce-0002")))},
		{bidText, []byte(mustEncodeF(f, mustCodecF(f, bid, keyB), req(agentproto.CtlStrRd, "fuzz-seed-nonce-0003")))},
		{strconv.FormatInt(bid+1, 10), []byte(mustEncodeF(f, mustCodecF(f, bid+1, keyA), req(agentproto.CtlStrRd, "fuzz-seed-nonce-0004")))},
		{bidText, nil},
		{bidText, []byte("%%%%")},
		{bidText, good[:len(good)-4]},
		{bidText, b64(ct[:len(ct)-1])},
		{bidText, b64(sealWith(keyA, append([]byte(`{"bid":1}`), make([]byte, 7)...), true))},                                   // padding byte 0
		{bidText, b64(sealWith(keyA, append(bytes.Repeat([]byte{'x'}, 15), 17), true))},                                         // padding byte 17
		{bidText, b64(sealWith(keyA, []byte("valid padding, garbage inside"), false))},                                          // padding ok, no JSON
		{bidText, frame(map[string]any{"bid": bid, "control": 1 << 16, "ts": fuzzNow.Unix(), "nonce": "fuzz-seed-nonce-0005"})}, // unknown control
		{bidText, b64(append(append(bytes.Clone(c1), make([]byte, 16)...), c1...))},                                             // C1 ‖ 0 ‖ C1
		{bidText, bytes.Repeat([]byte("A"), l1.MaxBody)},
		{bidText, bytes.Repeat([]byte("A"), 3*l1.MaxBody)},
		{"", good},
		{"-1", good},
		{"abc", good},
		{"99999999999999999999", good},
	} {
		f.Add(seed.bid, seed.body)
	}
	var (
		mu                         sync.Mutex
		inputs, refused, carried   int
		worstAlloc, worstAllocBody int
	)
	f.Fuzz(func(t *testing.T, bidParam string, body []byte) {
		run.mu.Lock()
		callsBefore := len(run.calls)
		run.mu.Unlock()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		status, resp := s.Serve(context.Background(), "192.0.2.1", bidParam, bytes.NewReader(body))
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		out, _ := json.Marshal(resp)
		run.mu.Lock()
		ran := len(run.calls) - callsBefore
		run.mu.Unlock()

		_, decodeErr := codec.Decode(body, fuzzNow)
		n, parseErr := strconv.ParseInt(bidParam, 10, 64)
		decodes := decodeErr == nil && parseErr == nil && n == bid
		switch {
		case !decodes:
			if status != http.StatusOK || string(out) != invalid || ran != 0 {
				t.Fatalf("bid %q, body %.60q: %d %s, %d calls; want 200 %s and none", bidParam, body, status, out, ran, invalid)
			}
		case string(out) == invalid: // a replay
			if status != http.StatusOK || ran != 0 {
				t.Fatalf("replayed body: %d %s, %d calls", status, out, ran)
			}
		default:
			if status != http.StatusOK || resp.Code != l1.CodeOK || ran != 1 {
				t.Fatalf("decodable body: %d %s, %d calls; want code 0 and one call", status, out, ran)
			}
		}
		if alloc > allocBound(len(body)) {
			t.Fatalf("a %d-byte body allocated %d bytes, over %d", len(body), alloc, allocBound(len(body)))
		}
		mu.Lock()
		defer mu.Unlock()
		inputs++
		if string(out) == invalid {
			refused++
		} else {
			carried++
		}
		if len(body) >= 1<<20 && (worstAllocBody == 0 || float64(alloc)/float64(min(len(body), l1.MaxBody+1)) > float64(worstAlloc)/float64(min(worstAllocBody, l1.MaxBody+1))) {
			worstAlloc, worstAllocBody = int(alloc), len(body)
		}
	})
	if inputs > 0 {
		battery.Report(f, "T58", "FuzzGateway, %d inputs (the seeds in go test; ≥5 min with -fuzz nightly): 0 panics, %d uniform refusals, %d carried out once; a %s-byte body allocated %s bytes (bound 8 × min(body, 1 MiB+1) + 256 KiB)",
			inputs, refused, carried, groupDigits(worstAllocBody), groupDigits(worstAlloc))
	}
}

func mustCodecF(f *testing.F, b int64, key string) *l1.Codec {
	c, err := l1.NewCodec(b, key)
	if err != nil {
		f.Fatal(err)
	}
	return c
}

func mustEncodeF(f *testing.F, c *l1.Codec, r l1.Request) string {
	s, err := c.Encode(r)
	if err != nil {
		f.Fatal(err)
	}
	return s
}

// groupDigits writes n with thousands separators.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
