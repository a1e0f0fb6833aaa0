package webhooks

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// verifyAny verifies in format f and returns the secret to adopt.
func verifyAny(f Format, h http.Header, body []byte, secret string, now time.Time) (string, error) {
	if f == FormatA {
		b, err := VerifyA(h, body, secret, now, Window)
		return string(b.Data.SecretKey), err
	}
	b, err := VerifyB(h, body, secret, now, Window)
	return string(b.After.SecretKey), err
}

func TestVerifyRoundTrip(t *testing.T) {
	h, body := mustRequest(t, FormatA, testEvent(), sentAt)
	a, err := VerifyA(h, body, oldSecret, sentAt.Add(time.Minute), 0)
	if err != nil {
		t.Fatalf("VerifyA: %v", err)
	}
	if a.Data.SecretKey != newSecret || a.DeliveryID != testEvent().DeliveryID || a.Source != SourceWeb || !a.OccurredAt.Equal(testEvent().OccurredAt) {
		t.Errorf("VerifyA body = %+v", a)
	}
	h, body = mustRequest(t, FormatB, testEvent(), sentAt)
	b, err := VerifyB(h, body, oldSecret, sentAt.Add(-time.Minute), 0)
	if err != nil {
		t.Fatalf("VerifyB: %v", err)
	}
	if b.After.SecretKey != newSecret || b.DeliveryID != "wd_"+testEvent().DeliveryID || b.Before != testEvent().Before || b.ChangedBy != testEvent().ChangedBy {
		t.Errorf("VerifyB body = %+v", b)
	}
}

func TestVerifyRefuses(t *testing.T) {
	type edit func(h http.Header, body []byte) []byte
	asIs := func(_ http.Header, b []byte) []byte { return b }
	for _, f := range []Format{FormatA, FormatB} {
		for name, tc := range map[string]struct {
			edit   edit
			secret string
			now    time.Time
			want   error
		}{
			"tampered body": {func(_ http.Header, b []byte) []byte {
				return []byte(strings.Replace(string(b), newSecret, strings.Repeat("0", 32), 1))
			}, oldSecret, sentAt, ErrSignature},
			"extra byte":        {func(_ http.Header, b []byte) []byte { return append(b, ' ') }, oldSecret, sentAt, ErrSignature},
			"new secret":        {asIs, newSecret, sentAt, ErrSignature},
			"empty secret":      {asIs, "", sentAt, ErrSignature},
			"301 s late":        {asIs, oldSecret, sentAt.Add(301 * time.Second), ErrStale},
			"301 s early":       {asIs, oldSecret, sentAt.Add(-301 * time.Second), ErrStale},
			"no signature":      {func(h http.Header, b []byte) []byte { h.Del(HeaderSignature); return b }, oldSecret, sentAt, ErrMalformed},
			"retimed":           {func(h http.Header, b []byte) []byte { retime(h, f, sentAt.Unix()+1); return b }, oldSecret, sentAt, ErrSignature},
			"other event":       {func(h http.Header, b []byte) []byte { h.Set(HeaderEvent, "host.deleted"); return b }, oldSecret, sentAt, ErrMalformed},
			"other delivery":    {func(h http.Header, b []byte) []byte { h.Set(HeaderDelivery, "x"); return b }, oldSecret, sentAt, ErrMalformed},
			"signature not hex": {func(h http.Header, b []byte) []byte { garble(h); return b }, oldSecret, sentAt, ErrSignature},
		} {
			h, body := mustRequest(t, f, testEvent(), sentAt)
			body = tc.edit(h, body)
			if _, err := verifyAny(f, h, body, tc.secret, tc.now); !errors.Is(err, tc.want) {
				t.Errorf("format %s, %s: err = %v, want %v", f, name, err, tc.want)
			}
		}
	}
}

// retime rewrites the signature timestamp, keeping the signature.
func retime(h http.Header, f Format, t int64) {
	if f == FormatB {
		h.Set(HeaderTimestamp, fmt.Sprint(t))
		return
	}
	_, sig, _ := strings.Cut(h.Get(HeaderSignature), ",")
	h.Set(HeaderSignature, fmt.Sprintf("t=%d,%s", t, sig))
}

// garble replaces the hex signature with non-hex of the same length.
func garble(h http.Header) {
	v := h.Get(HeaderSignature)
	h.Set(HeaderSignature, v[:len(v)-64]+strings.Repeat("z", 64))
}

func TestVerifyWindowEdges(t *testing.T) {
	for _, f := range []Format{FormatA, FormatB} {
		h, body := mustRequest(t, f, testEvent(), sentAt)
		for _, d := range []time.Duration{-Window, Window} {
			if _, err := verifyAny(f, h, body, oldSecret, sentAt.Add(d)); err != nil {
				t.Errorf("format %s at %+v: %v", f, d, err)
			}
		}
		if _, err := VerifyA(h, body, oldSecret, sentAt.Add(20*time.Second), 10*time.Second); f == FormatA && !errors.Is(err, ErrStale) {
			t.Errorf("custom 10 s window not applied: %v", err)
		}
	}
}

func TestVerifyASignatureHeaderForms(t *testing.T) {
	h, body := mustRequest(t, FormatA, testEvent(), sentAt)
	sig := strings.TrimPrefix(h.Get(HeaderSignature), "t=1767268830,v1=")
	for value, wantErr := range map[string]error{
		"t=1767268830,v1=" + sig:                                    nil,
		"v1=" + sig + ", t=1767268830":                              nil,
		"t=1767268830,v1=" + strings.ToUpper(sig):                   nil,
		"t=1767268830,v1=" + strings.Repeat("0", 64) + ",v1=" + sig: nil, // another v1 may be for a newer scheme
		"t=1767268830,v0=" + sig + ",v1=" + sig:                     nil,
		"t=1767268830":                                              ErrMalformed,
		"v1=" + sig:                                                 ErrMalformed,
		"t=1767268830,t=1767268830,v1=" + sig:                       ErrMalformed,
		"t=abc,v1=" + sig:                                           ErrMalformed,
		"t=1767268830,v1=" + sig[:63]:                               ErrSignature,
		"sha256=" + sig:                                             ErrMalformed,
	} {
		h.Set(HeaderSignature, value)
		if _, err := VerifyA(h, body, oldSecret, sentAt, Window); !errors.Is(err, wantErr) || (wantErr == nil) != (err == nil) {
			t.Errorf("%s: err = %v, want %v", value, err, wantErr)
		}
	}
}

func TestVerifyRefusesEmptySecret(t *testing.T) {
	e := testEvent()
	e.SigningKey = "x" // Validate needs one; the header is replaced below
	for _, f := range []Format{FormatA, FormatB} {
		h, body := mustRequest(t, f, e, sentAt)
		sig := Sign("", sentAt.Unix(), body)
		if f == FormatA {
			h.Set(HeaderSignature, fmt.Sprintf("t=%d,v1=%s", sentAt.Unix(), sig))
		} else {
			h.Set(HeaderSignature, "sha256="+sig)
		}
		if _, err := verifyAny(f, h, body, "", sentAt); !errors.Is(err, ErrSignature) {
			t.Errorf("format %s: signed and verified with an empty key: err = %v", f, err)
		}
	}
}

func TestVerifyBNeedsPrefix(t *testing.T) {
	e := testEvent()
	h, body := mustRequest(t, FormatB, e, sentAt)
	// A B-shaped body without the wd_ prefix, correctly signed.
	body = []byte(strings.Replace(string(body), "wd_"+e.DeliveryID, e.DeliveryID, 1))
	h.Set(HeaderDelivery, e.DeliveryID)
	h.Set(HeaderSignature, "sha256="+Sign(oldSecret, sentAt.Unix(), body))
	if _, err := VerifyB(h, body, oldSecret, sentAt, Window); !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v, want ErrMalformed", err)
	}
}

// TestChain: three quick changes. Each delivery verifies only with the
// secret that preceded it; a receiver adopting each new secret in order
// verifies all three, and one that skips ahead cannot.
func TestChain(t *testing.T) {
	secrets := []string{oldSecret, "11111111111111111111111111111111", "22222222222222222222222222222222", "33333333333333333333333333333333"}
	for _, f := range []Format{FormatA, FormatB} {
		type delivery struct {
			h    http.Header
			body []byte
		}
		var ds []delivery
		for i := 1; i <= 3; i++ {
			e := testEvent()
			e.DeliveryID = fmt.Sprintf("00000000-0000-4000-8000-00000000000%d", i)
			e.SigningKey, e.After.SecretKey = Secret(secrets[i-1]), Secret(secrets[i])
			h, body := mustRequest(t, f, e, sentAt.Add(time.Duration(i)*time.Second))
			ds = append(ds, delivery{h, body})
		}
		for i, d := range ds {
			for j, s := range secrets {
				_, err := verifyAny(f, d.h, d.body, s, sentAt)
				if (err == nil) != (j == i) {
					t.Errorf("format %s delivery %d with secret %d: err = %v", f, i+1, j, err)
				}
			}
		}
		held := secrets[0]
		seen := map[string]bool{}
		for i, d := range append(ds, ds[1]) { // the repeat of delivery 2 is deduplicated
			id := d.h.Get(HeaderDelivery)
			if seen[id] {
				continue
			}
			next, err := verifyAny(f, d.h, d.body, held, sentAt)
			if err != nil {
				t.Fatalf("format %s: in-order receiver refused delivery %d: %v", f, i+1, err)
			}
			seen[id], held = true, next
		}
		if held != secrets[3] {
			t.Errorf("format %s: receiver ends holding secret %q, want the last", f, held)
		}
		if _, err := verifyAny(f, ds[2].h, ds[2].body, secrets[0], sentAt); err == nil {
			t.Errorf("format %s: delivery 3 verified with the first secret", f)
		}
	}
}
