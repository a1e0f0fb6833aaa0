// Package webhooks builds, signs and verifies the webhook that tells a
// customer a host's L1 configuration changed, in the spec's two formats:
// A (envelope with data, spec 6.2) and B (before and after, spec 6.3).
//
// Each delivery is signed with HMAC-SHA256 keyed by the bytes of the host's
// previous secret_key and carries the new one, so a receiver verifies a
// delivery with the secret it holds and then adopts the new secret: the
// deliveries of one host form a chain that verifies only in order. The
// signature covers "<unix seconds>." followed by the raw body, with a fresh
// timestamp on every attempt; receivers refuse timestamps more than Window
// from their clock.
//
// This package is pure: it builds requests and schedules, and verifies what
// a receiver got. Queueing, sending and state live in the hub.
// docs/webhooks.md is written from it.
package webhooks

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"time"
)

// Format is a delivery format, chosen per host; A is the default.
type Format string

// The two formats.
const (
	FormatA Format = "A"
	FormatB Format = "B"
)

// ParseFormat reads a stored or configured format name.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatA, FormatB:
		return f, nil
	}
	return "", fmt.Errorf("webhooks: unknown format %q (want A or B)", s)
}

// Source is the entry through which the configuration changed.
type Source string

// The three sources.
const (
	SourceWeb       Source = "web"
	SourceAgent     Source = "agent"
	SourceClientAPI Source = "client_api"
)

func (s Source) valid() bool {
	return s == SourceWeb || s == SourceAgent || s == SourceClientAPI
}

// Actor kinds for ChangedBy: who made the change through each source.
const (
	ActorUser   = "user"    // source web: id is the user's
	ActorAPIKey = "api_key" // source client_api: id is the API key's
	ActorAgent  = "agent"   // source agent: id is the host's
)

// Window is how far a signature timestamp may be from a receiver's clock.
const Window = 300 * time.Second

// Secret is a secret_key. It prints as [redacted] with every fmt verb and
// in slog; JSON and string(s) give the value, so a struct holding one must
// not be logged as JSON unless it is a slog.LogValuer (After and Event are).
type Secret string

// Format implements fmt.Formatter.
func (Secret) Format(f fmt.State, _ rune) { io.WriteString(f, "[redacted]") }

// LogValue implements slog.LogValuer.
func (Secret) LogValue() slog.Value { return slog.StringValue("[redacted]") }

// Actor is who made a change (format B's changed_by).
type Actor struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	IP   string `json:"ip"`
}

// Before is the configuration before a change. It never holds the secret.
type Before struct {
	BID       int64  `json:"bid"`
	ReportURL string `json:"report_url"`
}

// After is the configuration after a change, with the new secret.
type After struct {
	BID       int64  `json:"bid"`
	SecretKey Secret `json:"secret_key"`
	ReportURL string `json:"report_url"`
}

// LogValue implements slog.LogValuer, leaving the secret out.
func (a After) LogValue() slog.Value {
	return slog.GroupValue(slog.Int64("bid", a.BID), slog.String("report_url", a.ReportURL))
}

// Event is one L1 configuration change as the hub queues it. Everything an
// attempt needs is captured at queue time, SigningKey included, so that
// later changes cannot alter a queued delivery.
type Event struct {
	DeliveryID string // uuid; format B sends it as "wd_" + DeliveryID
	UserID     string
	HostID     string
	HostName   string
	Source     Source
	OccurredAt time.Time
	ChangedBy  Actor
	Before     Before
	After      After
	// TargetURL is where the delivery goes: the new report_url.
	TargetURL string
	// SigningKey is the secret_key the change replaced.
	SigningKey Secret
}

// LogValue implements slog.LogValuer: the identifiers, never the secrets.
func (e Event) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("delivery_id", e.DeliveryID), slog.String("host_id", e.HostID),
		slog.String("source", string(e.Source)), slog.String("target_url", e.TargetURL))
}

// Validate checks what every attempt relies on. Its errors name fields,
// never secrets.
func (e Event) Validate() error {
	var errs []error
	need := func(v, name string) {
		if v == "" {
			errs = append(errs, fmt.Errorf("%s is required", name))
		}
	}
	need(e.DeliveryID, "delivery id")
	need(e.UserID, "user id")
	need(e.HostID, "host id")
	need(string(e.SigningKey), "signing key")
	need(string(e.After.SecretKey), "new secret key")
	if !e.Source.valid() {
		errs = append(errs, fmt.Errorf("source %q is not web, agent or client_api", e.Source))
	}
	if e.OccurredAt.IsZero() {
		errs = append(errs, errors.New("occurred_at is required"))
	}
	if u, err := url.Parse(e.TargetURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, errors.New("target url must be an absolute http or https URL"))
	}
	if e.TargetURL != e.After.ReportURL {
		errs = append(errs, errors.New("target url must equal the new report_url"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("webhooks: event %s: %w", e.DeliveryID, err)
	}
	return nil
}
