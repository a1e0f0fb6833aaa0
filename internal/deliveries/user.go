package deliveries

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/google/uuid"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/paging"
	"hostgate/internal/webhooks"
)

// User-level events (job.finished) are deliveries without a host: their
// body is the webhooks.UserBody envelope, stored as sent, and they are
// signed with the user's webhook secret, sealed with the row, which is a
// key of its own and not a chain. So they need no order between them: a
// host-less row waits for no other, while host rows keep their per-host
// order. The worker, its retries and dead letters are the same.

// Error codes of the user-level webhooks.
const (
	// CodeWebhookSecretMissing: a job asks for a notify_url while its
	// owner has no webhook secret (400).
	CodeWebhookSecretMissing = "webhook_secret_missing"
)

// ErrNoSecret: the user has never rotated a webhook secret.
var ErrNoSecret = errors.New("deliveries: no user webhook secret")

// SecretPrefix starts every user webhook secret.
const SecretPrefix = "whsec_"

// UserHistory is the storage of the user-level deliveries' history.
type UserHistory interface {
	// ListUserDeliveries pages userID's host-less deliveries, newest first.
	ListUserDeliveries(ctx context.Context, userID string, p paging.Page) ([]Delivery, int, error)
	// RetryUserDelivery is RetryDelivery for userID's host-less delivery
	// id: ErrNotFound, ErrNotDead.
	RetryUserDelivery(ctx context.Context, userID, id string, now time.Time) (Delivery, error)
}

// SecretStore keeps each user's sealed webhook secret.
type SecretStore interface {
	// PutUserSecret sets (or replaces) userID's sealed secret.
	PutUserSecret(ctx context.Context, userID string, sealed []byte, createdAt time.Time) error
	// UserSecret reads userID's sealed secret: ErrNoSecret when none.
	UserSecret(ctx context.Context, userID string) (sealed []byte, createdAt time.Time, err error)
}

// UserEvent makes the delivery row of a user-level event of type
// eventType (webhooks.EventJobFinished) for userID, queued at now: the
// envelope {"id","type","created_at","data"} with data as its object,
// to be sent to targetURL signed with secret (sealed under the id).
func UserEvent(id, userID, eventType, targetURL string, data any, secret webhooks.Secret, seal Sealer, now time.Time) (Delivery, error) {
	switch {
	case id == "" || userID == "" || eventType == "":
		return Delivery{}, errors.New("deliveries: user event needs an id, a user and a type")
	case secret == "":
		return Delivery{}, fmt.Errorf("deliveries: user event %s: no secret", id)
	}
	if u, err := url.Parse(targetURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Delivery{}, fmt.Errorf("deliveries: user event %s: target must be an absolute http or https URL", id)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return Delivery{}, fmt.Errorf("deliveries: user event %s: encode data: %w", id, err)
	}
	now = now.UTC().Truncate(time.Microsecond)
	body, err := json.Marshal(webhooks.UserBody{ID: id, Type: eventType, CreatedAt: now, Data: raw})
	if err != nil {
		return Delivery{}, fmt.Errorf("deliveries: user event %s: encode body: %w", id, err)
	}
	sealed, err := json.Marshal(secrets{Signing: secret})
	if err != nil {
		return Delivery{}, fmt.Errorf("deliveries: user event %s: encode secret: %w", id, err)
	}
	return Delivery{ID: id, UserID: userID, EventType: eventType, Format: webhooks.FormatA, Status: StatusPending,
		TargetURL: targetURL, Payload: body, SealedSecrets: seal.Seal(sealed, []byte(id)),
		NextAttemptAt: now, CreatedAt: now}, nil
}

// userSecret opens the signing secret of a host-less delivery.
func (d Delivery) userSecret(s Sealer) (webhooks.Secret, error) {
	plain, err := s.Open(d.SealedSecrets, []byte(d.ID))
	if err != nil {
		return "", fmt.Errorf("deliveries: delivery %s: open secret: %w", d.ID, err)
	}
	var sec secrets
	if err := json.Unmarshal(plain, &sec); err != nil {
		return "", fmt.Errorf("deliveries: delivery %s: decode secret", d.ID)
	}
	return sec.Signing, nil
}

// SecretStatus is what GET /v1/api/webhook-secret shows: never the
// secret.
type SecretStatus struct {
	Configured bool
	CreatedAt  *time.Time
}

// Secrets is the users' webhook secrets, sealed at rest with the keyring
// (the user id as aad, as keyring.SealedUserWebhookSecret re-seals them).
type Secrets struct {
	store SecretStore
	seal  Sealer
	now   func() time.Time
}

// NewSecrets returns the users' webhook secrets over store.
func NewSecrets(store SecretStore, seal Sealer) *Secrets {
	return &Secrets{store: store, seal: seal, now: time.Now}
}

func secretAAD(userID string) []byte { return []byte(userID) }

// WebhookSecretStatus says whether userID has a secret and since when.
func (s *Secrets) WebhookSecretStatus(ctx context.Context, userID string) (SecretStatus, error) {
	_, at, err := s.store.UserSecret(ctx, userID)
	switch {
	case errors.Is(err, ErrNoSecret):
		return SecretStatus{}, nil
	case err != nil:
		return SecretStatus{}, err
	}
	return SecretStatus{Configured: true, CreatedAt: &at}, nil
}

// RotateWebhookSecret makes userID a new secret, replacing any: the only
// time it is shown. Deliveries already queued keep the secret they were
// queued with.
func (s *Secrets) RotateWebhookSecret(ctx context.Context, userID string) (webhooks.Secret, time.Time, error) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	secret := webhooks.Secret(SecretPrefix + base64.RawURLEncoding.EncodeToString(b[:]))
	at := s.now().UTC().Truncate(time.Microsecond)
	if err := s.store.PutUserSecret(ctx, userID, s.seal.Seal([]byte(secret), secretAAD(userID)), at); err != nil {
		return "", time.Time{}, err
	}
	return secret, at, nil
}

// WebhookSecret is userID's current secret, for the jobs' notifier: 400
// webhook_secret_missing when the user has none.
func (s *Secrets) WebhookSecret(ctx context.Context, userID string) (webhooks.Secret, error) {
	sealed, _, err := s.store.UserSecret(ctx, userID)
	switch {
	case errors.Is(err, ErrNoSecret):
		return "", apperr.New(CodeWebhookSecretMissing, "create a webhook secret first (POST /v1/api/webhook-secret/rotate)")
	case err != nil:
		return "", err
	}
	plain, err := s.seal.Open(sealed, secretAAD(userID))
	if err != nil {
		return "", fmt.Errorf("deliveries: open webhook secret of %s: %w", userID, err)
	}
	return webhooks.Secret(plain), nil
}

// CheckSecret is nil when userID has a webhook secret, else 400
// webhook_secret_missing: what a job with a notify_url is checked with.
func (s *Secrets) CheckSecret(ctx context.Context, userID string) error {
	_, err := s.WebhookSecret(ctx, userID)
	return err
}

// Event builds userID's user-level event of eventType to url, signed with
// the user's current secret (UserEvent with a new id): the jobs'
// job.finished delivery, queued by the caller in its unit of work.
func (s *Secrets) Event(ctx context.Context, userID, eventType, url string, data any, now time.Time) (Delivery, error) {
	secret, err := s.WebhookSecret(ctx, userID)
	if err != nil {
		return Delivery{}, err
	}
	return UserEvent(uuid.NewString(), userID, eventType, url, data, secret, s.seal, now)
}
