package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// EventJobFinished is the user-level event a job with a notify_url sends
// when it ends (docs/webhooks.md, "job.finished").
const EventJobFinished = "job.finished"

// UserBody is the envelope of a user-level event: the event id (also
// X-Gateway-Delivery), its type (also X-Gateway-Event), when it was
// queued, and the event's object.
type UserBody struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

// NewUserRequest builds one attempt at a user-level event: body (the
// UserBody's JSON, the same on every attempt) posted to target with the
// format A headers, signed at now with the user's secret. The secret is
// a key of its own, not a chain: it changes only when the user rotates it.
func NewUserRequest(ctx context.Context, target, eventType, id string, body []byte, secret Secret, now time.Time) (*http.Request, error) {
	if secret == "" {
		return nil, fmt.Errorf("webhooks: delivery %s: no secret", id)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("webhooks: delivery %s: %w", id, err)
	}
	t := now.Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgentA)
	req.Header.Set(HeaderEvent, eventType)
	req.Header.Set(HeaderDelivery, id)
	req.Header.Set(HeaderSignature, "t="+strconv.FormatInt(t, 10)+",v1="+Sign(secret, t, body))
	return req, nil
}

// Verify checks a user-level event (job.finished) as a receiver must: the
// X-Gateway-Signature ("t=<unix>,v1=<hex>") over "<t>." and the raw body
// under the user's webhook secret (the whole whsec_… string), t within
// window of now (Window when window <= 0), then the envelope, whose id
// and type must match X-Gateway-Delivery and X-Gateway-Event.
func Verify(h http.Header, body []byte, secret string, now time.Time, window time.Duration) (UserBody, error) {
	t, sigs, err := parseSignatureA(h.Get(HeaderSignature))
	if err != nil {
		return UserBody{}, err
	}
	if err := verify(secret, t, body, sigs, now, window); err != nil {
		return UserBody{}, err
	}
	var b UserBody
	if err := json.Unmarshal(body, &b); err != nil {
		return UserBody{}, fmt.Errorf("%w: body: %v", ErrMalformed, err)
	}
	if b.Type == "" || h.Get(HeaderEvent) != b.Type {
		return UserBody{}, fmt.Errorf("%w: %s does not match the body's type", ErrMalformed, HeaderEvent)
	}
	if b.ID == "" || h.Get(HeaderDelivery) != b.ID {
		return UserBody{}, fmt.Errorf("%w: %s does not match the body's id", ErrMalformed, HeaderDelivery)
	}
	return b, nil
}
