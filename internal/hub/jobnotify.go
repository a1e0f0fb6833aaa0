package hub

import (
	"context"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/deliveries"
	"hostgate/internal/jobs"
	"hostgate/internal/webhooks"
)

// jobNotifier is the jobs' Notifier: a job's job.finished delivery to its
// notify_url, a user-level event signed with the owner's current webhook
// secret (deliveries.UserEvent).
type jobNotifier struct {
	secrets *deliveries.Secrets
	seal    deliveries.Sealer
}

func (n jobNotifier) CheckSecret(ctx context.Context, userID string) error {
	_, err := n.secrets.WebhookSecret(ctx, userID)
	return err
}

func (n jobNotifier) JobFinished(ctx context.Context, userID, url string, payload jobs.JobView, now time.Time) (deliveries.Delivery, error) {
	secret, err := n.secrets.WebhookSecret(ctx, userID)
	if err != nil {
		return deliveries.Delivery{}, err
	}
	return deliveries.UserEvent(uuid.NewString(), userID, webhooks.EventJobFinished, url, payload, secret, n.seal, now)
}
