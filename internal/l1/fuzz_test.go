package l1

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"hostgate/internal/agentproto"
)

// FuzzDecode: any body either decodes to a valid request that re-encodes
// to an equivalent body, or fails with exactly ErrInvalid. Never a panic.
func FuzzDecode(f *testing.F) {
	c := mustCodec(f, testBID, testKey)
	good := mustEncode(f, c, shellRequest())
	raw, _ := base64.StdEncoding.DecodeString(good)
	for _, seed := range []string{
		good, vectorBody, "", "=", "AAAA", "AAAAAAAAAAAAAAAAAAAAAA==", good[:len(good)-4],
		c.seal([]byte(`{}`)), c.seal([]byte(`null`)), c.seal([]byte(`{"bid":4821936602771}`)),
		c.seal([]byte(strings.Repeat("x", 16))), sealRaw(c, make([]byte, 16)),
		flip(raw, len(raw)-17), flip(raw, len(raw)-1),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := c.Decode(body, testNow)
		if err != nil {
			if err != ErrInvalid {
				t.Fatalf("Decode err = %v, want ErrInvalid", err)
			}
			return
		}
		again, err := c.Encode(r)
		if err != nil {
			t.Fatalf("decoded request %+v does not re-encode: %v", r, err)
		}
		r2, err := c.Decode([]byte(again), testNow)
		if err != nil {
			t.Fatalf("re-decode of %+v: %v", r, err)
		}
		// Encode compacts data; compare it as JSON.
		r.Args.Data = compact(t, r.Args.Data)
		if !reflect.DeepEqual(r, r2) {
			t.Fatalf("re-decode = %+v; want %+v", r2, r)
		}
	})
}

// FuzzRoundTrip: every request Encode accepts decodes to itself.
func FuzzRoundTrip(f *testing.F) {
	c := mustCodec(f, testBID, testKey)
	f.Add(int64(8192), `C:\game`, `{"args":"dir","timeout_s":10}`, testNow.Unix(), "n0nce-0123456789abcdef")
	f.Add(int64(4), "a.txt", `"héllo <&> \u2028"`, testNow.Unix()-300, strings.Repeat("Z", 64))
	f.Add(int64(3), "", ``, int64(0), "short")
	f.Fuzz(func(t *testing.T, control int64, path, data string, ts int64, nonce string) {
		if !utf8.ValidString(path) || (data != "" && !json.Valid([]byte(data))) {
			t.Skip("not representable in JSON as given")
		}
		r := Request{Control: control, Args: agentproto.ControlArgs{Path: path}, TS: ts, Nonce: nonce}
		if data != "" {
			r.Args.Data = compact(t, json.RawMessage(data))
		}
		body, err := c.Encode(r)
		if err != nil {
			if r.validate() == nil && len(path)+len(data) < MaxBody/2 {
				t.Fatalf("Encode refused a valid request: %v", err)
			}
			return
		}
		got, err := c.Decode([]byte(body), r.Time())
		if err != nil {
			t.Fatalf("Decode(Encode(%+v)) = %v", r, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, r)
		}
	})
}

// compact is data as a receiver sees it: the frame is compact JSON.
func compact(t *testing.T, data json.RawMessage) json.RawMessage {
	if data == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		t.Fatalf("compact %q: %v", data, err)
	}
	return buf.Bytes()
}
