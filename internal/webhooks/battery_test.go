package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"hostgate/internal/battery"
)

// TestBatterySignatureVectors (battery T05): with the fixed key, t and
// body of docs/webhooks.md, v1 equals the HMAC computed independently
// here (and the precomputed golden value); one flipped byte anywhere in
// the body, in t or in the signature is refused; 299 s and 300 s away
// verify, 301 s does not. Both formats.
func TestBatterySignatureVectors(t *testing.T) {
	for _, tc := range []struct {
		format Format
		body   string
		golden string
	}{{FormatA, goldenBodyA, goldenSigA}, {FormatB, goldenBodyB, goldenSigB}} {
		h, body := mustRequest(t, tc.format, testEvent(), sentAt)
		if string(body) != tc.body || h.Get(HeaderSignature) != tc.golden {
			t.Fatalf("format %s: request differs from the golden vector", tc.format)
		}
		mac := hmac.New(sha256.New, []byte(oldSecret))
		fmt.Fprintf(mac, "%d.", sentAt.Unix())
		mac.Write(body)
		want := hex.EncodeToString(mac.Sum(nil))
		if sig := sigHex(h); sig != want {
			t.Fatalf("format %s: v1 %s, independent HMAC %s", tc.format, sig, want)
		}
		if _, err := verifyAny(tc.format, h, body, oldSecret, sentAt); err != nil {
			t.Fatalf("format %s: the golden request does not verify: %v", tc.format, err)
		}

		refused, tried := 0, 0
		check := func(what string, h http.Header, b []byte) {
			t.Helper()
			tried++
			if _, err := verifyAny(tc.format, h, b, oldSecret, sentAt); err == nil {
				t.Errorf("format %s: %s verified", tc.format, what)
				return
			}
			refused++
		}
		// Every byte of the body, flipped.
		for i := range body {
			b := []byte(string(body))
			b[i] ^= 0x01
			check(fmt.Sprintf("body byte %d flipped", i), h.Clone(), b)
		}
		// Every digit of t, changed.
		ts := fmt.Sprint(sentAt.Unix())
		for i := range ts {
			d := []byte(ts)
			d[i] = '0' + (d[i]-'0'+1)%10
			h2 := h.Clone()
			if tc.format == FormatA {
				h2.Set(HeaderSignature, strings.Replace(h.Get(HeaderSignature), "t="+ts, "t="+string(d), 1))
			} else {
				h2.Set(HeaderTimestamp, string(d))
			}
			check(fmt.Sprintf("t digit %d changed", i), h2, body)
		}
		// Every hex digit of the signature, changed.
		sig := sigHex(h)
		for i := range sig {
			s := []byte(sig)
			s[i] = "0123456789abcdef"[(strings.IndexByte("0123456789abcdef", s[i])+1)%16]
			h2 := h.Clone()
			h2.Set(HeaderSignature, strings.Replace(h.Get(HeaderSignature), sig, string(s), 1))
			check(fmt.Sprintf("signature digit %d changed", i), h2, body)
		}
		// The window: 299 s and 300 s either side accepted, 301 s refused.
		for _, d := range []time.Duration{299 * time.Second, 300 * time.Second, -299 * time.Second, -300 * time.Second} {
			if _, err := verifyAny(tc.format, h, body, oldSecret, sentAt.Add(d)); err != nil {
				t.Errorf("format %s, Δt %v: %v", tc.format, d, err)
			}
		}
		for _, d := range []time.Duration{301 * time.Second, -301 * time.Second} {
			if _, err := verifyAny(tc.format, h, body, oldSecret, sentAt.Add(d)); err == nil {
				t.Errorf("format %s, Δt %v: verified", tc.format, d)
			}
		}
		battery.Report(t, "T05", "format %s: v1 = independent HMAC-SHA256 of the golden vector; %d/%d one-byte flips (body %d, t %d, signature %d) refused; Δt ±299/±300 s accepted, ±301 s refused",
			tc.format, refused, tried, len(body), len(ts), len(sig))
	}
}

// sigHex is the hex MAC of h's signature header, in either format.
func sigHex(h http.Header) string {
	v := h.Get(HeaderSignature)
	return v[len(v)-64:]
}
