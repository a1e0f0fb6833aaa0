package deliveries

import (
	"context"
	"errors"
	"time"

	"hostgate/internal/apperr"
	"hostgate/internal/paging"
)

// CodeDeliveryNotDead: a manual retry of a delivery that is not
// dead_letter (409).
const CodeDeliveryNotDead = "delivery_not_dead"

// History is what the Service reads and revives: the part of the Store
// the host owner's webhook history uses.
type History interface {
	ListDeliveries(ctx context.Context, hostID string, limit int) ([]Delivery, error)
	RetryDelivery(ctx context.Context, hostID, id string, now time.Time) (Delivery, error)
}

// OwnedHost resolves hostID for userID: the host's id when userID owns
// it, else an error (not_found for another user's host, as for a missing
// one).
type OwnedHost func(ctx context.Context, userID, hostID string) (string, error)

// Service is a host owner's webhook history: the latest deliveries of
// one of their hosts, and the manual retry of a dead one. Another user's
// host, and so its deliveries, read as not found.
type Service struct {
	store History
	owned OwnedHost
	// wake is the worker, woken after a manual retry; nil for none.
	wake interface{ Wake() }
	now  func() time.Time
}

// NewService returns the history service over store; wake (the Worker)
// is woken after each manual retry.
func NewService(store History, owned OwnedHost, wake interface{ Wake() }) *Service {
	return &Service{store: store, owned: owned, wake: wake, now: time.Now}
}

// List returns the latest limit deliveries of userID's host hostID,
// newest first.
func (s *Service) List(ctx context.Context, userID, hostID string, limit int) ([]Delivery, error) {
	id, err := s.owned(ctx, userID, hostID)
	if err != nil {
		return nil, err
	}
	return s.store.ListDeliveries(ctx, id, limit)
}

// Retry revives the dead_letter delivery deliveryID of userID's host
// hostID: it is due at once and gets one more attempt (docs/webhooks.md
// 6). A delivery of another host is not_found; one in any other state is
// delivery_not_dead.
func (s *Service) Retry(ctx context.Context, userID, hostID, deliveryID string) (Delivery, error) {
	id, err := s.owned(ctx, userID, hostID)
	if err != nil {
		return Delivery{}, err
	}
	return retried(s.wake)(s.store.RetryDelivery(ctx, id, deliveryID, s.now().UTC()))
}

// retried turns the store's answer to a manual retry into the client's
// and, when a delivery was revived, wakes the worker.
func retried(wake interface{ Wake() }) func(Delivery, error) (Delivery, error) {
	return func(d Delivery, err error) (Delivery, error) {
		switch {
		case errors.Is(err, ErrNotFound):
			return Delivery{}, apperr.NotFound("delivery")
		case errors.Is(err, ErrNotDead):
			return Delivery{}, apperr.New(CodeDeliveryNotDead, "only a dead_letter delivery can be retried")
		case err != nil:
			return Delivery{}, err
		}
		if wake != nil {
			wake.Wake()
		}
		return d, nil
	}
}

// UserService is a user's history of user-level deliveries (job.finished)
// and the manual retry of a dead one.
type UserService struct {
	store UserHistory
	wake  interface{ Wake() }
	now   func() time.Time
}

// NewUserService returns the user-level history over store; wake (the
// Worker) is woken after each manual retry.
func NewUserService(store UserHistory, wake interface{ Wake() }) *UserService {
	return &UserService{store: store, wake: wake, now: time.Now}
}

// ListUserDeliveries pages userID's user-level deliveries, newest first.
func (s *UserService) ListUserDeliveries(ctx context.Context, userID string, p paging.Page) (paging.Result[Delivery], error) {
	items, total, err := s.store.ListUserDeliveries(ctx, userID, p)
	if err != nil {
		return paging.Result[Delivery]{}, err
	}
	return paging.NewResult(items, total, p), nil
}

// RetryUserDelivery revives userID's dead_letter user-level delivery id;
// another user's is not_found, one in any other state delivery_not_dead.
func (s *UserService) RetryUserDelivery(ctx context.Context, userID, id string) (Delivery, error) {
	return retried(s.wake)(s.store.RetryUserDelivery(ctx, userID, id, s.now().UTC()))
}
