package hostgate

import (
	"container/list"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Receiving the hub's signed webhook deliveries (docs/webhooks.md,
// "Receivers"). The receiver rules, in order:
//
//  1. Read the raw body and verify over those exact bytes.
//  2. If the delivery id is one you have processed (DeliveryDedupe), answer
//     200 and do nothing else: a repeat was signed with a secret you have
//     since replaced.
//  3. VerifyWebhook with the secret you hold now (the host's previous
//     secret_key).
//  4. Only after it verified, record the delivery id and replace your stored
//     secret with WebhookEvent.NewSecretKey, together. The next delivery is
//     signed with that new secret.
//  5. Answer 2xx within 5 s; a delivery that does not verify gets 401, and
//     the hub retries it (deliveries of a host verify only in order).

// Webhook event types and headers.
const (
	WebhookEventA = "host.l1_config_updated"
	WebhookEventB = "host.l1_config.updated"
	// WebhookEventJobFinished is sent to a job's notify_url when it ends,
	// signed with the user's webhook secret (RotateWebhookSecret).
	WebhookEventJobFinished = "job.finished"
	HeaderWebhookEvent      = "X-Gateway-Event"
	HeaderWebhookDelivery   = "X-Gateway-Delivery"
	HeaderWebhookSignature  = "X-Gateway-Signature"
	HeaderWebhookTimestamp  = "X-Gateway-Timestamp"
	// DefaultWebhookTolerance is the hub's replay window.
	DefaultWebhookTolerance = 300 * time.Second
)

// ErrWebhookVerification matches (errors.Is) every error of VerifyWebhook:
// answer non-2xx and adopt nothing from the delivery.
var ErrWebhookVerification = errors.New("hostgate: webhook refused")

// WebhookVerificationError says why a delivery was refused. Reason is
// "malformed", "signature" or "stale" (as in the Python and TypeScript SDKs).
type WebhookVerificationError struct {
	Reason  string
	Message string
}

func (e *WebhookVerificationError) Error() string {
	return fmt.Sprintf("hostgate: webhook refused (%s): %s", e.Reason, e.Message)
}

// Is makes errors.Is(err, ErrWebhookVerification) true.
func (e *WebhookVerificationError) Is(target error) bool { return target == ErrWebhookVerification }

func refuse(reason, format string, a ...any) error {
	return &WebhookVerificationError{Reason: reason, Message: fmt.Sprintf(format, a...)}
}

// WebhookEvent is a verified delivery.
type WebhookEvent struct {
	Format     string // "A" or "B"
	Event      string // WebhookEventA or WebhookEventB
	DeliveryID string // equals X-Gateway-Delivery (B: "wd_" + uuid); the same on every attempt
	HostID     string
	// NewSecretKey is the host's new secret_key: replace your stored secret
	// with it after recording DeliveryID. Empty when the event carries none.
	NewSecretKey string
	BID          int64
	URL          string    // the new report URL
	Timestamp    time.Time // the signed attempt time
	// Body is the whole body as received (already verified).
	Body json.RawMessage
	// Data is the envelope's data, for the user-level events (job.finished:
	// the job, see Job); nil for the host events.
	Data json.RawMessage
}

// Job decodes the job of a job.finished event.
func (e *WebhookEvent) Job() (Job, error) {
	var j Job
	if e.Event != WebhookEventJobFinished {
		return j, fmt.Errorf("hostgate: a %s event carries no job", e.Event)
	}
	err := json.Unmarshal(e.Data, &j)
	return j, err
}

// VerifyOption changes VerifyWebhook's checks.
type VerifyOption func(*verifyConfig)

type verifyConfig struct {
	tolerance time.Duration
	now       func() time.Time
}

// WithTolerance sets the timestamp window (default 300 s).
func WithTolerance(d time.Duration) VerifyOption {
	return func(c *verifyConfig) { c.tolerance = d }
}

// WithClock replaces time.Now (for tests).
func WithClock(now func() time.Time) VerifyOption {
	return func(c *verifyConfig) { c.now = now }
}

// SignWebhookA returns the X-Gateway-Signature of a Format A delivery (for tests).
func SignWebhookA(secret string, t int64, body []byte) string {
	return "t=" + strconv.FormatInt(t, 10) + ",v1=" + hex.EncodeToString(webhookMAC(secret, t, body))
}

// SignWebhookB returns the X-Gateway-Signature of a Format B delivery (for tests).
func SignWebhookB(secret string, t int64, body []byte) string {
	return "sha256=" + hex.EncodeToString(webhookMAC(secret, t, body))
}

func webhookMAC(secret string, t int64, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(t, 10) + "."))
	m.Write(body)
	return m.Sum(nil)
}

// VerifyWebhook verifies one delivery with the secret you hold now and
// returns its event, or an error matching ErrWebhookVerification. Format B
// is recognised by a "sha256=" signature (with X-Gateway-Timestamp), Format
// A by "t=...,v1=..." (parts in any order, unknown parts ignored, any v1 may
// match). body must be the raw bytes as received.
//
// The Python and TypeScript SDKs give the same verdict for every input
// (docs/webhooks.md, "Receivers"; the corpus sdk/testdata/verify and
// FuzzVerifierParity check it): header values lose spaces and tabs at both
// ends; a timestamp is 1 to 18 ASCII digits; a MAC is 64 hex digits; the
// body is UTF-8 JSON nested at most 64 deep.
func VerifyWebhook(header http.Header, body []byte, secret string, opts ...VerifyOption) (*WebhookEvent, error) {
	cfg := verifyConfig{tolerance: DefaultWebhookTolerance, now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	sig := trimOWS(header.Get(HeaderWebhookSignature))
	if sig == "" {
		return nil, refuse("malformed", "no %s header", HeaderWebhookSignature)
	}
	var (
		t          int64
		sigs       []string
		format     string
		event      string
		err        error
		newSection string
		urlField   string
	)
	if hexSig, ok := strings.CutPrefix(sig, "sha256="); ok {
		if t, ok = parseUnixSeconds(trimOWS(header.Get(HeaderWebhookTimestamp))); !ok {
			return nil, refuse("malformed", "%s is not unix seconds", HeaderWebhookTimestamp)
		}
		sigs, format, event, newSection, urlField = []string{hexSig}, "B", WebhookEventB, "after", "report_url"
	} else {
		if t, sigs, err = parseSignatureA(sig); err != nil {
			return nil, err
		}
		format, event, newSection, urlField = "A", WebhookEventA, "data", "url"
	}
	if secret == "" {
		return nil, refuse("signature", "the receiver holds no secret")
	}
	want := webhookMAC(secret, t, body)
	matched := false
	for _, s := range sigs {
		if got, ok := decodeMAC(s); ok && hmac.Equal(got, want) {
			matched = true
		}
	}
	if !matched {
		return nil, refuse("signature", "signature does not match")
	}
	signed := time.Unix(t, 0)
	if d := cfg.now().Sub(signed); d > cfg.tolerance || d < -cfg.tolerance {
		return nil, refuse("stale", "signed at %d, %s from now", t, d.Round(time.Second))
	}

	if !utf8.Valid(body) {
		return nil, refuse("malformed", "body is not UTF-8")
	}
	if jsonTooDeep(body, maxWebhookDepth) {
		return nil, refuse("malformed", "body nests deeper than %d", maxWebhookDepth)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, refuse("malformed", "body: %v", err)
	}
	var gotEvent, did, hostID string
	_ = json.Unmarshal(doc["event"], &gotEvent)
	_ = json.Unmarshal(doc["delivery_id"], &did)
	_ = json.Unmarshal(doc["host_id"], &hostID)
	if format == "A" && header.Get(HeaderWebhookEvent) != WebhookEventA {
		if _, ok := doc["type"]; ok {
			return userEvent(header, doc, signed, body)
		}
	}
	if gotEvent != event || header.Get(HeaderWebhookEvent) != event {
		return nil, refuse("malformed", "event is not %s", event)
	}
	if did == "" || header.Get(HeaderWebhookDelivery) != did {
		return nil, refuse("malformed", "%s does not match the body's delivery_id", HeaderWebhookDelivery)
	}
	if format == "B" && !strings.HasPrefix(did, "wd_") {
		return nil, refuse("malformed", "delivery_id lacks the wd_ prefix")
	}
	// The new configuration: absent or null carries no secret; anything
	// but an object, or a secret_key neither a string nor null, is
	// refused. bid and the URL are read when they have their types.
	var section map[string]json.RawMessage
	if raw, ok := doc[newSection]; ok && json.Unmarshal(raw, &section) != nil {
		return nil, refuse("malformed", "%s is not an object", newSection)
	}
	var (
		newKey, u string
		bid       int64
	)
	if raw, ok := section["secret_key"]; ok && string(raw) != "null" && json.Unmarshal(raw, &newKey) != nil {
		return nil, refuse("malformed", "%s.secret_key is not a string", newSection)
	}
	_ = json.Unmarshal(section["bid"], &bid)
	_ = json.Unmarshal(section[urlField], &u)
	return &WebhookEvent{
		Format: format, Event: event, DeliveryID: did, HostID: hostID,
		NewSecretKey: newKey, BID: bid, URL: u,
		Timestamp: signed, Body: append(json.RawMessage(nil), body...),
	}, nil
}

// maxWebhookDepth is how deep a delivery's JSON may nest (the hub's nest
// a few levels deep); the three SDKs refuse deeper bodies alike.
const maxWebhookDepth = 64

// jsonTooDeep says whether body nests arrays and objects deeper than max
// (exact for valid JSON; the decoder refuses anything else anyway).
func jsonTooDeep(body []byte, max int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range body {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > max {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// trimOWS drops the spaces and tabs around a header value (RFC 9110 OWS).
func trimOWS(s string) string { return strings.Trim(s, " \t") }

// parseUnixSeconds reads a signed time: 1 to 18 ASCII digits, nothing else
// (no sign, no space, no other script's digits).
func parseUnixSeconds(s string) (int64, bool) {
	if len(s) < 1 || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int64(s[i]-'0')
	}
	return n, true
}

// decodeMAC reads a signature: exactly 64 hex digits.
func decodeMAC(s string) ([]byte, bool) {
	if len(s) != 2*sha256.Size {
		return nil, false
	}
	b, err := hex.DecodeString(s)
	return b, err == nil
}

// userEvent checks the envelope {id, type, created_at, data} of a
// user-level event (job.finished), already verified with the user's
// webhook secret: the headers must name its type and id.
func userEvent(header http.Header, doc map[string]json.RawMessage, signed time.Time, body []byte) (*WebhookEvent, error) {
	var typ, id string
	_ = json.Unmarshal(doc["type"], &typ)
	_ = json.Unmarshal(doc["id"], &id)
	if typ == "" || header.Get(HeaderWebhookEvent) != typ {
		return nil, refuse("malformed", "%s does not match the body's type", HeaderWebhookEvent)
	}
	if id == "" || header.Get(HeaderWebhookDelivery) != id {
		return nil, refuse("malformed", "%s does not match the body's id", HeaderWebhookDelivery)
	}
	return &WebhookEvent{Format: "A", Event: typ, DeliveryID: id, Timestamp: signed,
		Body: append(json.RawMessage(nil), body...), Data: append(json.RawMessage(nil), doc["data"]...)}, nil
}

func parseSignatureA(v string) (int64, []string, error) {
	var (
		t     int64
		haveT bool
		sigs  []string
	)
	for _, part := range strings.Split(v, ",") {
		key, val, _ := strings.Cut(trimOWS(part), "=")
		switch key {
		case "t":
			n, ok := parseUnixSeconds(trimOWS(val))
			if haveT || !ok {
				return 0, nil, refuse("malformed", "%s needs exactly one t=<unix seconds>", HeaderWebhookSignature)
			}
			t, haveT = n, true
		case "v1":
			sigs = append(sigs, val)
		}
	}
	if !haveT || len(sigs) == 0 {
		return 0, nil, refuse("malformed", "%s must read t=<unix>,v1=<hex>", HeaderWebhookSignature)
	}
	return t, sigs, nil
}

// DeliveryDedupe remembers the delivery ids a receiver has processed, in
// memory: bounded (past Capacity the oldest are forgotten; with a TTL, ids
// older than it are forgotten too) and safe for concurrent use. A receiver
// that must survive restarts keeps the ids in its database instead, in the
// same transaction as the secret it adopts. The zero value holds up to
// 10000 ids without a TTL.
type DeliveryDedupe struct {
	mu    sync.Mutex
	max   int
	ttl   time.Duration
	now   func() time.Time
	order *list.List // of dedupeEntry, oldest first
	ids   map[string]*list.Element
}

type dedupeEntry struct {
	id string
	at time.Time
}

// NewDeliveryDedupe returns a dedupe holding at most capacity ids (10000
// when capacity < 1); ttl > 0 also forgets ids recorded longer ago.
func NewDeliveryDedupe(capacity int, ttl time.Duration) *DeliveryDedupe {
	if capacity < 1 {
		capacity = 10000
	}
	return &DeliveryDedupe{max: capacity, ttl: ttl, now: time.Now, order: list.New(), ids: map[string]*list.Element{}}
}

// init makes the zero value usable; d.mu is held.
func (d *DeliveryDedupe) init() {
	if d.ids == nil {
		d.ids, d.order = map[string]*list.Element{}, list.New()
	}
	if d.max < 1 {
		d.max = 10000
	}
	if d.now == nil {
		d.now = time.Now
	}
}

// expire forgets ids older than the TTL; d.mu is held.
func (d *DeliveryDedupe) expire() {
	d.init()
	if d.ttl <= 0 {
		return
	}
	cut := d.now().Add(-d.ttl)
	for e := d.order.Front(); e != nil && !e.Value.(dedupeEntry).at.After(cut); e = d.order.Front() {
		delete(d.ids, e.Value.(dedupeEntry).id)
		d.order.Remove(e)
	}
}

// Seen reports whether id was recorded (a repeat: answer 200, do nothing).
func (d *DeliveryDedupe) Seen(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expire()
	_, ok := d.ids[id]
	return ok
}

// Add records id; it returns false when id was already recorded.
func (d *DeliveryDedupe) Add(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expire()
	if _, ok := d.ids[id]; ok {
		return false
	}
	d.ids[id] = d.order.PushBack(dedupeEntry{id: id, at: d.now()})
	for d.order.Len() > d.max {
		e := d.order.Front()
		delete(d.ids, e.Value.(dedupeEntry).id)
		d.order.Remove(e)
	}
	return true
}

// Len is the number of ids held.
func (d *DeliveryDedupe) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expire()
	return d.order.Len()
}
