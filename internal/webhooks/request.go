package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Event names and user agents, per format.
const (
	EventA     = "host.l1_config_updated"
	EventB     = "host.l1_config.updated"
	UserAgentA = "gateway-webhook/1.0"
	UserAgentB = "gateway-new-webhook/1.0"
)

// Header names.
const (
	HeaderEvent     = "X-Gateway-Event"
	HeaderDelivery  = "X-Gateway-Delivery"
	HeaderSignature = "X-Gateway-Signature"
	HeaderTimestamp = "X-Gateway-Timestamp" // format B only
)

// BodyA is the body of a format A delivery.
type BodyA struct {
	Event      string    `json:"event"`
	DeliveryID string    `json:"delivery_id"`
	UserID     string    `json:"user_id"`
	HostID     string    `json:"host_id"`
	Source     Source    `json:"source"`
	OccurredAt time.Time `json:"occurred_at"`
	Data       DataA     `json:"data"`
}

// DataA is the new configuration in a format A body; URL is the new
// report_url, which is also where the delivery was sent.
type DataA struct {
	BID       int64  `json:"bid"`
	SecretKey Secret `json:"secret_key"`
	URL       string `json:"url"`
}

// BodyB is the body of a format B delivery. Timestamp is when the change
// happened; the time of the attempt is the X-Gateway-Timestamp header.
type BodyB struct {
	Event      string    `json:"event"`
	DeliveryID string    `json:"delivery_id"`
	Timestamp  time.Time `json:"timestamp"`
	HostID     string    `json:"host_id"`
	HostName   string    `json:"host_name"`
	ChangedBy  Actor     `json:"changed_by"`
	Before     Before    `json:"before"`
	After      After     `json:"after"`
}

// WireDeliveryID is the delivery id a receiver sees and deduplicates by:
// the uuid for A, "wd_" + uuid for B.
func WireDeliveryID(f Format, id string) string {
	if f == FormatB {
		return "wd_" + id
	}
	return id
}

// NewRequest builds the HTTP request of one delivery attempt at now, in
// format f. Call it for every attempt: each gets a fresh signature
// timestamp, while the body stays the same.
func NewRequest(ctx context.Context, f Format, e Event, now time.Time) (*http.Request, error) {
	body, err := marshalBody(f, e)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.TargetURL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("webhooks: delivery %s: %w", e.DeliveryID, err)
	}
	setHeaders(req.Header, f, e, now.Unix(), body)
	return req, nil
}

// marshalBody is the JSON body of e in format f, the same on every attempt.
func marshalBody(f Format, e Event) ([]byte, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	var v any
	switch f {
	case FormatA:
		v = bodyA(e)
	case FormatB:
		v = bodyB(e)
	default:
		return nil, fmt.Errorf("webhooks: delivery %s: unknown format %q", e.DeliveryID, f)
	}
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("webhooks: delivery %s: encode body: %w", e.DeliveryID, err)
	}
	return body, nil
}

func bodyA(e Event) BodyA {
	return BodyA{
		Event: EventA, DeliveryID: e.DeliveryID, UserID: e.UserID, HostID: e.HostID,
		Source: e.Source, OccurredAt: e.OccurredAt.UTC(),
		Data: DataA{BID: e.After.BID, SecretKey: e.After.SecretKey, URL: e.After.ReportURL},
	}
}

func bodyB(e Event) BodyB {
	return BodyB{
		Event: EventB, DeliveryID: WireDeliveryID(FormatB, e.DeliveryID), Timestamp: e.OccurredAt.UTC(),
		HostID: e.HostID, HostName: e.HostName, ChangedBy: e.ChangedBy, Before: e.Before, After: e.After,
	}
}

// setHeaders writes exactly the headers spec 6.2 or 6.3 lists.
func setHeaders(h http.Header, f Format, e Event, t int64, body []byte) {
	sig := Sign(e.SigningKey, t, body)
	h.Set("Content-Type", "application/json")
	h.Set(HeaderDelivery, WireDeliveryID(f, e.DeliveryID))
	if f == FormatA {
		h.Set("User-Agent", UserAgentA)
		h.Set(HeaderEvent, EventA)
		h.Set(HeaderSignature, "t="+strconv.FormatInt(t, 10)+",v1="+sig)
		return
	}
	h.Set("User-Agent", UserAgentB)
	h.Set(HeaderEvent, EventB)
	h.Set(HeaderTimestamp, strconv.FormatInt(t, 10))
	h.Set(HeaderSignature, "sha256="+sig)
}

// Sign returns the hex HMAC-SHA256, keyed by the bytes of key as written,
// of "<t>." followed by body. Both formats sign this message.
func Sign(key Secret, t int64, body []byte) string {
	return hex.EncodeToString(mac(key, t, body))
}

func mac(key Secret, t int64, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(key))
	m.Write(strconv.AppendInt(nil, t, 10))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}
