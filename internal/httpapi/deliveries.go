package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/deliveries"
)

// Deliveries is a host owner's webhook history (deliveries.Service), and
// what else a user's webhooks and scheduled work need: the user-level
// history, the webhook secret and the schedules.
type Deliveries interface {
	List(ctx context.Context, userID, hostID string, limit int) ([]deliveries.Delivery, error)
	Retry(ctx context.Context, userID, hostID, deliveryID string) (deliveries.Delivery, error)
	UserDeliveries
	WebhookSecrets
	Schedules
}

// DeliveryRow is the spec's WebhookDeliveryRow, plus format, last_error
// and next_attempt_at.
type DeliveryRow struct {
	ID            string     `json:"id"`
	EventType     string     `json:"event_type"`
	Format        string     `json:"format" doc:"A or B (hostgate addition)"`
	Status        string     `json:"status" enum:"pending,retrying,success,dead_letter,skipped_no_url"`
	Attempts      int        `json:"attempts"`
	TargetURL     string     `json:"target_url"`
	HTTPStatus    *int       `json:"http_status,omitempty" doc:"The receiver's status code of the last answered attempt"`
	LastError     string     `json:"last_error,omitempty" doc:"Why the last attempt failed (hostgate addition)"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty" doc:"When a pending or retrying row is due (hostgate addition)"`
	CreatedAt     time.Time  `json:"created_at"`
	DeliveredAt   *time.Time `json:"delivered_at,omitempty"`
}

func deliveryRow(d deliveries.Delivery) DeliveryRow {
	r := DeliveryRow{ID: d.ID, EventType: d.EventType, Format: string(d.Format), Status: string(d.Status),
		Attempts: d.Attempts, TargetURL: d.TargetURL, HTTPStatus: d.HTTPStatus, LastError: d.LastError,
		CreatedAt: d.CreatedAt, DeliveredAt: d.DeliveredAt}
	if d.Status.Unfinished() {
		at := d.NextAttemptAt
		r.NextAttemptAt = &at
	}
	return r
}

type deliveriesIn struct {
	HostIDParam
	Limit int `query:"limit" minimum:"1" maximum:"200" default:"50" doc:"Rows, newest first (default 50, at most 200)"`
}

type deliveriesOut struct {
	Body struct {
		Items []DeliveryRow `json:"items"`
	}
}

type retryDeliveryIn struct {
	HostIDParam
	DeliveryID string `path:"delivery_id" maxLength:"64" doc:"Delivery id"`
}

type deliveryOut struct{ Body DeliveryRow }

// userOrKeySecurity: the webhook history routes take a user token or, as
// spec 5.9 allows, an API key.
var userOrKeySecurity = append(append([]map[string][]string{}, userSecurity...), apiKeySecurity...)

func (s *Server) deliveryRoutes() {
	tags := []string{"webhooks"}
	op(s, huma.Operation{OperationID: "userListWebhookDeliveries", Method: http.MethodGet,
		Path: "/v1/user/hosts/{id}/webhook-deliveries", Summary: "The host's latest webhook deliveries, newest first (user token or API key)",
		Tags: tags, Security: userOrKeySecurity}, s.listDeliveries)
	op(s, huma.Operation{OperationID: "userRetryWebhookDelivery", Method: http.MethodPost,
		Path:    "/v1/user/hosts/{id}/webhook-deliveries/{delivery_id}/retry",
		Summary: "Send a dead_letter delivery again, once (user token or API key)", Tags: tags, Security: userOrKeySecurity},
		s.retryDelivery)
}

// ownerOf is the user behind a request authenticated by a user token or
// an API key.
func ownerOf(ctx context.Context) string {
	if u := userOf(ctx); u.UserID != "" {
		return u.UserID
	}
	return clientOf(ctx).UserID
}

func (s *Server) listDeliveries(ctx context.Context, in *deliveriesIn) (*deliveriesOut, error) {
	ds, err := s.cfg.Deliveries.List(ctx, ownerOf(ctx), in.ID, in.Limit)
	if err != nil {
		return nil, err
	}
	out := &deliveriesOut{}
	out.Body.Items = make([]DeliveryRow, len(ds))
	for i, d := range ds {
		out.Body.Items[i] = deliveryRow(d)
	}
	return out, nil
}

// retryDelivery revives a dead_letter delivery of the caller's host
// (docs/webhooks.md 6).
func (s *Server) retryDelivery(ctx context.Context, in *retryDeliveryIn) (*deliveryOut, error) {
	d, err := s.cfg.Deliveries.Retry(ctx, ownerOf(ctx), in.ID, in.DeliveryID)
	if err != nil {
		return nil, err
	}
	return &deliveryOut{Body: deliveryRow(d)}, nil
}
