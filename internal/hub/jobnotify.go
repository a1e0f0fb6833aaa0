package hub

import (
	"context"
	"time"

	"hostgate/internal/deliveries"
	"hostgate/internal/jobs"
	"hostgate/internal/webhooks"
)

// jobNotifier is the jobs' Notifier: a job's job.finished delivery to its
// notify_url, a user-level event signed with the owner's current webhook
// secret.
type jobNotifier struct{ secrets *deliveries.Secrets }

func (n jobNotifier) CheckSecret(ctx context.Context, userID string) error {
	return n.secrets.CheckSecret(ctx, userID)
}

func (n jobNotifier) JobFinished(ctx context.Context, userID, url string, payload jobs.JobView, now time.Time) (deliveries.Delivery, error) {
	return n.secrets.Event(ctx, userID, webhooks.EventJobFinished, url, payload, now)
}
