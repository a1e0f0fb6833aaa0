package webhooks

import (
	"crypto/hmac"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzVerifySignatureHeaders feeds any signature header, timestamp and
// body to the receivers' checks of both formats (VerifyA: X-Gateway-Signature
// "t=<unix>,v1=<hex>"; VerifyB: "sha256=<hex>" with X-Gateway-Timestamp).
// "{mac}" in the header stands for the true signature of the input, so
// the fuzzer reaches past the signature check. Nothing panics; every
// refusal is ErrMalformed, ErrSignature or ErrStale; and nothing is
// accepted unless the header carries the HMAC of "<t>." and the body under
// the secret, with t within the window.
func FuzzVerifySignatureHeaders(f *testing.F) {
	const secret = "fuzz-webhook-secret"
	now := time.Unix(1767268830, 0)
	bodyA := `{"event":"host.l1_config_updated","delivery_id":"d1","data":{"bid":1,"secret_key":"new","url":"u"}}`
	bodyB := `{"event":"host.l1_config.updated","delivery_id":"wd_d1","after":{"bid":1,"secret_key":"new","report_url":"u"}}`
	f.Add(false, "t=1767268830,v1={mac}", "", "d1", []byte(bodyA))
	f.Add(false, "t=1767268830,v1=00,v1={mac},x=y", "", "d1", []byte(bodyA))
	f.Add(false, "t=1767268830,t=1767268830,v1={mac}", "", "d1", []byte(bodyA))
	f.Add(false, "t=1767260000,v1={mac}", "", "d1", []byte(bodyA))
	f.Add(false, "v1={mac}", "", "d1", []byte(bodyA))
	f.Add(false, "t=--5,v1={mac}", "", "d1", []byte(bodyA))
	f.Add(false, "t=1767268830,v1={mac}", "", "d2", []byte(bodyA))
	f.Add(true, "sha256={mac}", "1767268830", "wd_d1", []byte(bodyB))
	f.Add(true, "sha256={mac}", "1767268830", "d1", []byte(strings.ReplaceAll(bodyB, "wd_d1", "d1")))
	f.Add(true, "sha256={mac}", "²", "wd_d1", []byte(bodyB))
	f.Add(true, "SHA256={mac}", "1767268830", "wd_d1", []byte(bodyB))
	f.Add(true, "sha256=", "1767268830", "wd_d1", []byte(bodyB))
	f.Add(true, "sha256={mac}", "1767268830", "wd_d1", []byte(`{"event":"host.l1_config.updated"`))
	f.Fuzz(func(t *testing.T, formatB bool, sig, ts string, delivery string, body []byte) {
		tsForMAC := ts
		if !formatB {
			if _, after, ok := strings.Cut(sig, "t="); ok {
				tsForMAC, _, _ = strings.Cut(after, ",")
			}
		}
		signedAt, _ := strconv.ParseInt(tsForMAC, 10, 64)
		sig = strings.ReplaceAll(sig, "{mac}", Sign(Secret(secret), signedAt, body))
		h := http.Header{}
		h.Set(HeaderSignature, sig)
		h.Set(HeaderDelivery, delivery)
		var err error
		var sigs []string
		if formatB {
			h.Set(HeaderEvent, EventB)
			h.Set(HeaderTimestamp, ts)
			_, err = VerifyB(h, body, secret, now, 0)
			s, _ := strings.CutPrefix(sig, "sha256=")
			sigs = []string{s}
			signedAt, _ = strconv.ParseInt(ts, 10, 64)
		} else {
			h.Set(HeaderEvent, EventA)
			_, err = VerifyA(h, body, secret, now, 0)
			signedAt, sigs, _ = parseSignatureA(sig)
		}
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrSignature) && !errors.Is(err, ErrStale) {
				t.Fatalf("error %v is none of ErrMalformed, ErrSignature, ErrStale", err)
			}
			return
		}
		want := mac(Secret(secret), signedAt, body)
		signed := false
		for _, s := range sigs {
			got, err := hex.DecodeString(s)
			signed = signed || (err == nil && hmac.Equal(got, want))
		}
		if !signed {
			t.Fatalf("accepted without the body's signature: header %q, timestamp %q", sig, ts)
		}
		if d := now.Sub(time.Unix(signedAt, 0)); d > Window || d < -Window {
			t.Fatalf("accepted a delivery signed %v from now", d)
		}
	})
}
