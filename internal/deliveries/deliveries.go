// Package deliveries is the hub's durable webhook queue: one row per L1
// configuration change, queued in the same transaction as the change, and
// the worker that sends the rows with package webhooks, retries them on the
// format's schedule and dead-letters them.
//
// Deliveries of one host go out strictly in the order of their changes
// (seq): each is signed with the secret its change replaced, so a receiver
// can verify them only in sequence. A row is sent only when no older row of
// its host is still pending or retrying, so a failing delivery holds back
// the later ones of its host until it succeeds (or, once dead, until a
// manual retry succeeds). Rows are claimed with a lease, so several hub
// instances sharing one database never send one delivery at the same time.
// docs/webhooks.md section 6 describes the states.
package deliveries

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"hostgate/internal/clip"
	"hostgate/internal/webhooks"
)

// Status is where a delivery is in its life (spec 3, docs/webhooks.md 6).
type Status string

// The delivery states.
const (
	StatusPending      Status = "pending"        // queued, never tried
	StatusRetrying     Status = "retrying"       // tried and failed; tried again at NextAttemptAt
	StatusSuccess      Status = "success"        // the receiver answered 2xx
	StatusDeadLetter   Status = "dead_letter"    // failed MaxAttempts times; only a manual retry revives it
	StatusSkippedNoURL Status = "skipped_no_url" // the host had no report URL: nothing to send
)

// Unfinished reports whether the worker still has to send a delivery in
// this state: pending and retrying rows hold back later rows of the host.
func (s Status) Unfinished() bool { return s == StatusPending || s == StatusRetrying }

// History limits for ListDeliveries.
const (
	DefaultLimit = 50
	MaxLimit     = 200
)

// Errors of the Store.
var (
	ErrNotFound  = errors.New("deliveries: delivery not found")
	ErrNotDead   = errors.New("deliveries: only a dead_letter delivery can be retried")
	ErrLeaseLost = errors.New("deliveries: lease not held (expired and taken over, or finished)")
)

// Delivery is one queued webhook delivery: a row of webhook_deliveries.
type Delivery struct {
	ID        string // uuid; the event's DeliveryID
	HostID    string // "" for a user-level event (job.finished)
	UserID    string
	EventType string // webhooks.EventA or EventB, by Format
	Format    webhooks.Format
	Status    Status
	Attempts  int
	TargetURL string
	// HTTPStatus is the receiver's status code of the last attempt that got
	// an answer; nil before any.
	HTTPStatus *int
	// LastError says why the last attempt failed: short, never a secret.
	LastError string
	// Payload is the JSON of the webhooks.Event with both secrets blanked;
	// SealedSecrets holds them, sealed with the delivery id as aad.
	Payload       []byte
	SealedSecrets []byte
	// Seq orders the deliveries of one host: strictly increasing per host
	// in commit order. The store assigns it.
	Seq           int64
	NextAttemptAt time.Time
	LeaseOwner    string
	LeaseUntil    *time.Time
	CreatedAt     time.Time
	DeliveredAt   *time.Time
}

// Result is the outcome of one attempt, as the lease owner records it.
// Status is StatusSuccess, StatusRetrying or StatusDeadLetter.
type Result struct {
	Status        Status
	At            time.Time // when the attempt ended: delivered_at on success
	HTTPStatus    int       // 0: no answer (timeout, refused, connection error)
	Error         string    // why it failed; "" on success
	NextAttemptAt time.Time // for StatusRetrying
}

// Sealer seals the secrets of a queued delivery. *keyring.Keyring is one:
// its Seal cannot fail (AES-GCM with a fresh nonce), so Seal returns no
// error here either.
type Sealer interface {
	Seal(plaintext, aad []byte) []byte
	Open(sealed, aad []byte) ([]byte, error)
}

// Store is what package deliveries needs from storage.
type Store interface {
	// EnqueueDelivery inserts d on its own. The hub queues deliveries inside
	// the transaction of the L1 change instead (sqldb's insertDelivery);
	// this is that, standalone. A row without a target is stored as
	// skipped_no_url. The host must exist: hosts.ErrNotFound.
	EnqueueDelivery(ctx context.Context, d Delivery) error
	// ClaimDue leases up to limit deliveries to owner until now+lease: rows
	// pending or retrying, due (NextAttemptAt <= now), not leased or with
	// an expired lease, and the oldest unfinished row of their host. So a
	// claimed batch holds at most one row per host, and no two owners hold
	// one row at the same time. The rows come back in seq order.
	ClaimDue(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]Delivery, error)
	// FinishDelivery records r for delivery id and releases the lease,
	// counting one more attempt. Only the owner of a live lease may:
	// ErrLeaseLost otherwise.
	FinishDelivery(ctx context.Context, id, owner string, r Result) error
	// CountUnfinishedDeliveries counts the deliveries still to be sent
	// (pending or retrying): the queue depth.
	CountUnfinishedDeliveries(ctx context.Context) (int64, error)
	// CountQueue counts, in one statement, the deliveries still to be
	// sent (as CountUnfinishedDeliveries) and the dead letters.
	CountQueue(ctx context.Context) (Queue, error)
	// ListDeliveries returns the host's latest deliveries, newest first;
	// limit <= 0 is DefaultLimit, and at most MaxLimit.
	ListDeliveries(ctx context.Context, hostID string, limit int) ([]Delivery, error)
	// RetryDelivery moves the host's dead_letter delivery id back to
	// retrying, due at now, attempts kept and lease cleared; ErrNotFound,
	// or ErrNotDead for a row in any other state.
	RetryDelivery(ctx context.Context, hostID, id string, now time.Time) (Delivery, error)
	// The user-level deliveries' history and the users' webhook secrets.
	UserHistory
	SecretStore
}

// Queue is the delivery queue at a moment: the deliveries still to be
// sent (pending or retrying) and those dead-lettered (waiting for a manual
// retry).
type Queue struct {
	Unfinished int64
	Dead       int64
}

// secrets is what SealedSecrets holds.
type secrets struct {
	New     webhooks.Secret `json:"new"`
	Signing webhooks.Secret `json:"signing"`
}

// New makes the delivery row of event e in format f, queued at now: the
// payload with its two secrets sealed under the delivery id. An event
// without a target URL (the host has no report URL) becomes a
// skipped_no_url row; any other event must pass e.Validate.
func New(e webhooks.Event, f webhooks.Format, s Sealer, now time.Time) (Delivery, error) {
	eventType, err := eventType(f)
	if err != nil {
		return Delivery{}, err
	}
	status := StatusPending
	if e.TargetURL == "" {
		status = StatusSkippedNoURL
	} else if err := e.Validate(); err != nil {
		return Delivery{}, err
	}
	sealed, err := json.Marshal(secrets{New: e.After.SecretKey, Signing: e.SigningKey})
	if err != nil {
		return Delivery{}, fmt.Errorf("deliveries: encode secrets: %w", err)
	}
	e.After.SecretKey, e.SigningKey = "", ""
	payload, err := json.Marshal(e)
	if err != nil {
		return Delivery{}, fmt.Errorf("deliveries: encode event: %w", err)
	}
	return Delivery{
		ID: e.DeliveryID, HostID: e.HostID, UserID: e.UserID, EventType: eventType, Format: f,
		Status: status, TargetURL: e.TargetURL, Payload: payload,
		SealedSecrets: s.Seal(sealed, []byte(e.DeliveryID)), NextAttemptAt: now, CreatedAt: now,
	}, nil
}

func eventType(f webhooks.Format) (string, error) {
	switch f {
	case webhooks.FormatA:
		return webhooks.EventA, nil
	case webhooks.FormatB:
		return webhooks.EventB, nil
	}
	return "", fmt.Errorf("deliveries: unknown format %q", f)
}

// Event rebuilds the webhooks.Event of d, opening its secrets.
func (d Delivery) Event(s Sealer) (webhooks.Event, error) {
	var e webhooks.Event
	if err := json.Unmarshal(d.Payload, &e); err != nil {
		return webhooks.Event{}, fmt.Errorf("deliveries: delivery %s: decode event: %w", d.ID, err)
	}
	plain, err := s.Open(d.SealedSecrets, []byte(d.ID))
	if err != nil {
		return webhooks.Event{}, fmt.Errorf("deliveries: delivery %s: open secrets: %w", d.ID, err)
	}
	var sec secrets
	if err := json.Unmarshal(plain, &sec); err != nil {
		return webhooks.Event{}, fmt.Errorf("deliveries: delivery %s: decode secrets", d.ID)
	}
	e.After.SecretKey, e.SigningKey = sec.New, sec.Signing
	return e, nil
}

// Outcome is the Result of an attempt on d that ended at now: success for
// a 2xx status, else a failure with why, retried on sched or dead once the
// attempts (this one included) reach sched.MaxAttempts.
func Outcome(d Delivery, sched webhooks.Schedule, now time.Time, httpStatus int, why string) Result {
	r := Result{At: now, HTTPStatus: httpStatus}
	if httpStatus >= 200 && httpStatus <= 299 && why == "" {
		r.Status = StatusSuccess
		return r
	}
	if why == "" {
		why = fmt.Sprintf("receiver answered %d", httpStatus)
	}
	r.Error = clip.String(why, maxErrorLen)
	delay, dead := sched.Next(d.Attempts + 1)
	if dead {
		r.Status = StatusDeadLetter
		return r
	}
	r.Status, r.NextAttemptAt = StatusRetrying, now.Add(delay)
	return r
}

// maxErrorLen bounds LastError.
const maxErrorLen = 200
