package webhooks

import (
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Why a receiver refused a delivery. Answer any of them with a non-2xx
// status and do not adopt anything from the body.
var (
	ErrMalformed = errors.New("webhooks: malformed delivery")
	ErrSignature = errors.New("webhooks: signature does not match")
	ErrStale     = errors.New("webhooks: timestamp outside the window")
)

// VerifyA checks a format A delivery as a receiver must: the signature of
// X-Gateway-Signature ("t=<unix>,v1=<hex>") under secret, the secret the
// receiver holds now (the previous secret_key), then t within window of now
// (Window when window <= 0), then the body. It returns the body, whose
// Data.SecretKey the receiver adopts once it has recorded the delivery id.
func VerifyA(h http.Header, body []byte, secret string, now time.Time, window time.Duration) (BodyA, error) {
	t, sigs, err := parseSignatureA(h.Get(HeaderSignature))
	if err != nil {
		return BodyA{}, err
	}
	if err := verify(secret, t, body, sigs, now, window); err != nil {
		return BodyA{}, err
	}
	var b BodyA
	if err := decodeBody(h, body, EventA, &b); err != nil {
		return BodyA{}, err
	}
	return b, nil
}

// VerifyB checks a format B delivery: X-Gateway-Signature ("sha256=<hex>")
// over X-Gateway-Timestamp and the body under secret, the timestamp within
// window of now (Window when window <= 0), then the body. The receiver
// adopts After.SecretKey of the result.
func VerifyB(h http.Header, body []byte, secret string, now time.Time, window time.Duration) (BodyB, error) {
	t, err := strconv.ParseInt(h.Get(HeaderTimestamp), 10, 64)
	if err != nil {
		return BodyB{}, fmt.Errorf("%w: %s is not unix seconds", ErrMalformed, HeaderTimestamp)
	}
	sig, ok := strings.CutPrefix(h.Get(HeaderSignature), "sha256=")
	if !ok {
		return BodyB{}, fmt.Errorf("%w: %s must start with sha256=", ErrMalformed, HeaderSignature)
	}
	if err := verify(secret, t, body, []string{sig}, now, window); err != nil {
		return BodyB{}, err
	}
	var b BodyB
	if err := decodeBody(h, body, EventB, &b); err != nil {
		return BodyB{}, err
	}
	if !strings.HasPrefix(b.DeliveryID, "wd_") {
		return BodyB{}, fmt.Errorf("%w: delivery_id lacks the wd_ prefix", ErrMalformed)
	}
	return b, nil
}

// parseSignatureA reads "t=<unix>,v1=<hex>". Several v1 values are
// allowed (any one may match) and unknown keys ignored, so that the header
// can grow without breaking receivers.
func parseSignatureA(v string) (int64, []string, error) {
	var t int64
	var haveT bool
	var sigs []string
	for part := range strings.SplitSeq(v, ",") {
		key, val, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch key {
		case "t":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || haveT {
				return 0, nil, fmt.Errorf("%w: %s needs exactly one t=<unix seconds>", ErrMalformed, HeaderSignature)
			}
			t, haveT = n, true
		case "v1":
			sigs = append(sigs, val)
		}
	}
	if !haveT || len(sigs) == 0 {
		return 0, nil, fmt.Errorf("%w: %s must read t=<unix>,v1=<hex>", ErrMalformed, HeaderSignature)
	}
	return t, sigs, nil
}

// verify checks the signature first, so that ErrStale is only ever said of
// a delivery that really came from the hub.
func verify(secret string, t int64, body []byte, sigs []string, now time.Time, window time.Duration) error {
	if secret == "" {
		// An empty HMAC key is a key anyone can sign with.
		return fmt.Errorf("%w: the receiver holds no secret", ErrSignature)
	}
	want := mac(Secret(secret), t, body)
	matched := false
	for _, s := range sigs {
		got, err := hex.DecodeString(s)
		matched = matched || (err == nil && hmac.Equal(got, want))
	}
	if !matched {
		return ErrSignature
	}
	if window <= 0 {
		window = Window
	}
	if d := now.Sub(time.Unix(t, 0)); d > window || d < -window {
		return fmt.Errorf("%w: signed at %d, %v from now", ErrStale, t, d.Round(time.Second))
	}
	return nil
}

// delivered is a parsed body: *BodyA or *BodyB.
type delivered interface {
	ids() (event, deliveryID string)
}

func (b *BodyA) ids() (string, string) { return b.Event, b.DeliveryID }
func (b *BodyB) ids() (string, string) { return b.Event, b.DeliveryID }

// decodeBody parses body into dst and checks that its event and delivery
// id agree with the headers.
func decodeBody(h http.Header, body []byte, event string, dst delivered) error {
	if err := json.Unmarshal(body, dst); err != nil {
		return fmt.Errorf("%w: body: %v", ErrMalformed, err)
	}
	gotEvent, id := dst.ids()
	if gotEvent != event || h.Get(HeaderEvent) != event {
		return fmt.Errorf("%w: event is not %s", ErrMalformed, event)
	}
	if id == "" || h.Get(HeaderDelivery) != id {
		return fmt.Errorf("%w: %s does not match the body's delivery_id", ErrMalformed, HeaderDelivery)
	}
	return nil
}
