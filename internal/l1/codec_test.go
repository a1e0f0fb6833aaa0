package l1

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

const (
	testKey = "3f9a1c7e5b2d4086a1e3c5b7d9f02468"
	testBID = int64(4821936602771)
)

var testNow = time.Unix(1767268800, 0) // 2026-01-01T12:00:00Z

func mustCodec(t testing.TB, bid int64, key string) *Codec {
	t.Helper()
	c, err := NewCodec(bid, key)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func shellRequest() Request {
	return Request{
		Control: agentproto.CtlExecShell,
		Args:    agentproto.ControlArgs{Path: `C:\game`, Data: json.RawMessage(`{"args":"dir","timeout_s":10}`)},
		TS:      testNow.Unix(),
		Nonce:   "n0nce-0123456789abcdef",
	}
}

func TestRoundTrip(t *testing.T) {
	c := mustCodec(t, testBID, testKey)
	for _, r := range []Request{
		shellRequest(),
		{Control: agentproto.CtlDirMk, Args: agentproto.ControlArgs{Path: `C:\a`}, TS: testNow.Unix() - 300, Nonce: strings.Repeat("a", 16)},
		{Control: agentproto.CtlFileMk, Args: agentproto.ControlArgs{Path: "x", Data: json.RawMessage(`"héllo <&>"`)}, TS: testNow.Unix() + 300, Nonce: strings.Repeat("Z", 64)},
		{Control: agentproto.CtlOrchestratedShutdown, TS: testNow.Unix(), Nonce: "_-_-_-_-_-_-_-_-"},
		NewRequest(agentproto.CtlStrRd, agentproto.ControlArgs{Path: "p"}, testNow),
	} {
		body, err := c.Encode(r)
		if err != nil {
			t.Fatalf("Encode(%+v): %v", r, err)
		}
		got, err := c.Decode([]byte(body), testNow)
		if err != nil {
			t.Fatalf("Decode(Encode(%+v)): %v", r, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, r)
		}
	}
}

func TestNewRequestNonceIsValidAndFresh(t *testing.T) {
	a := NewRequest(agentproto.CtlDirMk, agentproto.ControlArgs{}, testNow)
	b := NewRequest(agentproto.CtlDirMk, agentproto.ControlArgs{}, testNow)
	if err := validateNonce(a.Nonce); err != nil {
		t.Fatal(err)
	}
	if a.Nonce == b.Nonce {
		t.Fatalf("two requests share nonce %q", a.Nonce)
	}
	if !a.Time().Equal(testNow) {
		t.Fatalf("Time() = %v, want %v", a.Time(), testNow)
	}
}

// TestDecodeUniformError: whatever is wrong, the sender sees one error.
func TestDecodeUniformError(t *testing.T) {
	c := mustCodec(t, testBID, testKey)
	good, err := c.Encode(shellRequest())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(good)
	frameWith := func(edit func(m map[string]any)) string {
		m := map[string]any{"bid": testBID, "control": 8192, "args": map[string]any{"path": "p"}, "ts": testNow.Unix(), "nonce": "0123456789abcdef"}
		edit(m)
		b, _ := json.Marshal(m)
		return c.seal(b)
	}
	cases := map[string]string{
		"empty":                "",
		"spaces":               "   \n",
		"not base64":           "!!!!" + good[4:],
		"base64 url alphabet":  strings.NewReplacer("+", "-", "/", "_").Replace(good) + "-_",
		"one byte short":       base64.StdEncoding.EncodeToString(raw[:len(raw)-1]),
		"one byte long":        base64.StdEncoding.EncodeToString(append(bytes.Clone(raw), 0)),
		"one block short":      base64.StdEncoding.EncodeToString(raw[:len(raw)-16]),
		"bit flip last block":  flip(raw, len(raw)-1),
		"bit flip first block": flip(raw, 0),
		"bad padding 0":        sealRaw(c, append([]byte(`{"bid":1}`), make([]byte, 7)...)),
		"bad padding 17":       sealRaw(c, append(bytes.Repeat([]byte{'x'}, 15), 17)),
		"bad padding mixed":    sealRaw(c, append(bytes.Repeat([]byte{'x'}, 13), 2, 3, 3)),
		"valid JSON, no padding": func() string { // trailing spaces are valid JSON, 0x20 is no padding
			plain := mustPlain(t, c, good)
			return sealRaw(c, append(plain, bytes.Repeat([]byte{' '}, 16+16-len(plain)%16)...))
		}(),
		"padded not JSON":    c.seal([]byte("hello, world")),
		"JSON array":         c.seal([]byte(`[1,2,3]`)),
		"trailing content":   c.seal(append(mustPlain(t, c, good), " {}"...)),
		"trailing brace":     c.seal(append(mustPlain(t, c, good), '}')),
		"unknown field":      frameWith(func(m map[string]any) { m["extra"] = 1 }),
		"unknown args field": frameWith(func(m map[string]any) { m["args"] = map[string]any{"paths": "p"} }),
		"missing bid":        frameWith(func(m map[string]any) { delete(m, "bid") }),
		"missing control":    frameWith(func(m map[string]any) { delete(m, "control") }),
		"missing ts":         frameWith(func(m map[string]any) { delete(m, "ts") }),
		"missing nonce":      frameWith(func(m map[string]any) { delete(m, "nonce") }),
		"other bid":          frameWith(func(m map[string]any) { m["bid"] = testBID + 1 }),
		"control 0":          frameWith(func(m map[string]any) { m["control"] = 0 }),
		"control 3":          frameWith(func(m map[string]any) { m["control"] = 3 }),
		"control -8192":      frameWith(func(m map[string]any) { m["control"] = -8192 }),
		"control 65536":      frameWith(func(m map[string]any) { m["control"] = 65536 }),
		"control settings":   frameWith(func(m map[string]any) { m["control"] = agentproto.CtlSettingsUpdate }),
		"control as string":  frameWith(func(m map[string]any) { m["control"] = "8192" }),
		"control fractional": frameWith(func(m map[string]any) { m["control"] = 8192.5 }),
		"ts 0":               frameWith(func(m map[string]any) { m["ts"] = 0 }),
		"ts 301 s old":       frameWith(func(m map[string]any) { m["ts"] = testNow.Unix() - 301 }),
		"ts 301 s ahead":     frameWith(func(m map[string]any) { m["ts"] = testNow.Unix() + 301 }),
		"ts in ms":           frameWith(func(m map[string]any) { m["ts"] = testNow.UnixMilli() }),
		"nonce 15 chars":     frameWith(func(m map[string]any) { m["nonce"] = strings.Repeat("a", 15) }),
		"nonce 65 chars":     frameWith(func(m map[string]any) { m["nonce"] = strings.Repeat("a", 65) }),
		"nonce with space":   frameWith(func(m map[string]any) { m["nonce"] = "0123456789 abcdef" }),
		"nonce with colon":   frameWith(func(m map[string]any) { m["nonce"] = "0123456789:abcdef" }),
		"over MaxBody":       strings.Repeat("A", MaxBody+4),
		"wrong key":          mustEncode(t, mustCodec(t, testBID, "3f9a1c7e5b2d4086a1e3c5b7d9f02469"), shellRequest()),
		"key hex-decoded": func() string { // a client's likely mistake: AES-128
			k, _ := hex.DecodeString(testKey)
			blk, _ := aes.NewCipher(k)
			return (&Codec{bid: testBID, block: blk, iv: k}).seal(mustPlain(t, c, good))
		}(),
	}
	for name, body := range cases {
		_, err := c.Decode([]byte(body), testNow)
		if err != ErrInvalid || err.Error() != "l1: invalid message" {
			t.Errorf("%s: Decode err = %v, want exactly ErrInvalid", name, err)
		}
	}
	if _, err := c.Decode([]byte(" \n"+good+"\r\n"), testNow); err != nil {
		t.Errorf("surrounding whitespace refused: %v", err)
	}
}

// TestDecodeRefusesNonCanonicalBase64: unused low bits of the last base64
// character must be zero, so one ciphertext has exactly one accepted text.
func TestDecodeRefusesNonCanonicalBase64(t *testing.T) {
	c := mustCodec(t, testBID, testKey)
	r := shellRequest()
	var body string
	for n := MinNonceLen; !strings.HasSuffix(body, "="); n++ {
		r.Nonce = strings.Repeat("n", n)
		body = mustEncode(t, c, r)
	}
	if _, err := c.Decode([]byte(body), testNow); err != nil {
		t.Fatalf("canonical body refused: %v", err)
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	data := strings.TrimRight(body, "=")
	last := strings.IndexByte(alphabet, data[len(data)-1])
	odd := data[:len(data)-1] + string(alphabet[last+1]) + body[len(data):]
	if _, err := c.Decode([]byte(odd), testNow); err != ErrInvalid {
		t.Fatalf("non-canonical body: err = %v, want ErrInvalid", err)
	}
}

func flip(raw []byte, i int) string {
	b := bytes.Clone(raw)
	b[i] ^= 1
	return base64.StdEncoding.EncodeToString(b)
}

// sealRaw encrypts whole blocks without adding padding.
func sealRaw(c *Codec, blocks []byte) string {
	b := bytes.Clone(blocks)
	cipher.NewCBCEncrypter(c.block, c.iv).CryptBlocks(b, b)
	return base64.StdEncoding.EncodeToString(b)
}

func mustEncode(t testing.TB, c *Codec, r Request) string {
	t.Helper()
	s, err := c.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustPlain(t testing.TB, c *Codec, body string) []byte {
	t.Helper()
	ct, err := base64.StdEncoding.DecodeString(body)
	if err != nil {
		t.Fatal(err)
	}
	plain, ok := c.open(ct)
	if ok != 1 {
		t.Fatal("bad padding")
	}
	return plain
}

func TestDecodeClockWindowEdges(t *testing.T) {
	c := mustCodec(t, testBID, testKey)
	r := shellRequest()
	body := []byte(mustEncode(t, c, r))
	for _, d := range []time.Duration{-MaxSkew, 0, MaxSkew, MaxSkew + 999*time.Millisecond} {
		if _, err := c.Decode(body, r.Time().Add(d)); err != nil {
			t.Errorf("now = ts%+v: %v", d, err)
		}
	}
	for _, d := range []time.Duration{-MaxSkew - time.Second, MaxSkew + time.Second} {
		if _, err := c.Decode(body, r.Time().Add(d)); err != ErrInvalid {
			t.Errorf("now = ts%+v: err = %v, want ErrInvalid", d, err)
		}
	}
}

func TestUnpadMatchesReference(t *testing.T) {
	reference := func(b []byte) (int, bool) {
		p := int(b[len(b)-1])
		if p < 1 || p > 16 {
			return len(b), false
		}
		for _, x := range b[len(b)-p:] {
			if int(x) != p {
				return len(b), false
			}
		}
		return len(b) - p, true
	}
	block := make([]byte, 32)
	for last := range 256 {
		for fill := range 18 {
			for i := range block {
				block[i] = 'x'
			}
			// fill trailing bytes with the padding value, one short of or
			// past the claimed length, to probe every boundary.
			for i := 0; i < fill && i < 16; i++ {
				block[31-i] = byte(last)
			}
			block[31] = byte(last)
			wantN, wantOK := reference(block)
			n, ok := unpad(block)
			if n != wantN || (ok == 1) != wantOK {
				t.Fatalf("unpad(last=%d fill=%d) = %d,%d; want %d,%v", last, fill, n, ok, wantN, wantOK)
			}
		}
	}
}

func TestNewCodecKeySize(t *testing.T) {
	for _, key := range []string{"", strings.Repeat("k", 31), strings.Repeat("k", 33), strings.Repeat("k", 64)} {
		_, err := NewCodec(1, key)
		if !errors.Is(err, ErrKeySize) || errors.Is(err, ErrInvalid) {
			t.Errorf("NewCodec(len %d) err = %v, want ErrKeySize", len(key), err)
		}
		if key != "" && strings.Contains(err.Error(), key) {
			t.Errorf("error %q contains the key", err)
		}
	}
}

func TestEncodeSaysWhatIsWrong(t *testing.T) {
	c := mustCodec(t, testBID, testKey)
	for name, tc := range map[string]struct {
		edit func(*Request)
		want string
	}{
		"control":  {func(r *Request) { r.Control = 1 << 16 }, "not a legacy control"},
		"ts":       {func(r *Request) { r.TS = 0 }, "ts must be positive"},
		"nonce":    {func(r *Request) { r.Nonce = "short" }, "nonce must be 16…64"},
		"charset":  {func(r *Request) { r.Nonce = strings.Repeat("é", 10) }, "outside [A-Za-z0-9_-]"},
		"bad data": {func(r *Request) { r.Args.Data = json.RawMessage(`{`) }, "encode frame"},
		"too big": {func(r *Request) {
			r.Args.Data, _ = json.Marshal(strings.Repeat("a", MaxBody))
		}, "over the 1048576 limit"},
	} {
		r := shellRequest()
		tc.edit(&r)
		if _, err := c.Encode(r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Encode err = %v, want it to mention %q", name, err, tc.want)
		}
	}
}

func TestDecodeNearSizeLimit(t *testing.T) {
	c := mustCodec(t, testBID, testKey)
	r := shellRequest()
	// 3/4 of MaxBody in plaintext, less room for the frame: just fits.
	r.Args.Data, _ = json.Marshal(strings.Repeat("a", MaxBody/4*3-200))
	body := mustEncode(t, c, r)
	if len(body) > MaxBody || len(body) < MaxBody-400 {
		t.Fatalf("body is %d bytes, want just under %d", len(body), MaxBody)
	}
	if _, err := c.Decode([]byte(body), testNow); err != nil {
		t.Fatalf("Decode at %d bytes: %v", len(body), err)
	}
}

func TestIsLegacyControlMatchesControlsTable(t *testing.T) {
	legacy := 0
	for _, ctl := range agentproto.Controls {
		want := ctl.Value <= agentproto.CtlOrchestratedShutdown
		if IsLegacyControl(ctl.Value) != want {
			t.Errorf("IsLegacyControl(%s=%d) = %v", ctl.Name, ctl.Value, !want)
		}
		if want {
			legacy++
		}
	}
	if legacy != 16 {
		t.Fatalf("controls table has %d legacy values, want 16", legacy)
	}
	for _, v := range []int64{0, -1, 3, 6, 32769, 65536, 1 << 62, -1 << 63} {
		if IsLegacyControl(v) {
			t.Errorf("IsLegacyControl(%d) = true", v)
		}
	}
}

// TestCodecConcurrentUse: one codec serves many requests at once.
func TestCodecConcurrentUse(t *testing.T) {
	c := mustCodec(t, testBID, testKey)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				r := NewRequest(agentproto.CtlDirMk, agentproto.ControlArgs{Path: "p"}, testNow)
				body, err := c.Encode(r)
				if err != nil {
					t.Error(err)
					return
				}
				if got, err := c.Decode([]byte(body), testNow); err != nil || got.Nonce != r.Nonce {
					t.Errorf("Decode = %+v, %v", got, err)
					return
				}
			}
		})
	}
	wg.Wait()
}
