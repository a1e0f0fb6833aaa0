package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/deliveries"
	"hostgate/internal/paging"
	"hostgate/internal/webhooks"
)

// WebhookSecrets is the users' webhook secrets (deliveries.Secrets).
type WebhookSecrets interface {
	WebhookSecretStatus(ctx context.Context, userID string) (deliveries.SecretStatus, error)
	RotateWebhookSecret(ctx context.Context, userID string) (webhooks.Secret, time.Time, error)
}

// UserDeliveries is a user's history of user-level webhook deliveries
// (deliveries.UserService).
type UserDeliveries interface {
	ListUserDeliveries(ctx context.Context, userID string, p paging.Page) (paging.Result[deliveries.Delivery], error)
	RetryUserDelivery(ctx context.Context, userID, id string) (deliveries.Delivery, error)
}

type webhookSecretOut struct {
	Body struct {
		Configured bool       `json:"configured"`
		CreatedAt  *time.Time `json:"created_at" nullable:"true" doc:"When the current secret was made; null when none"`
	}
}

type rotatedSecretOut struct {
	Body struct {
		Secret    string    `json:"secret" doc:"whsec_…: shown only in this answer"`
		CreatedAt time.Time `json:"created_at"`
	}
}

type userDeliveriesIn struct{ PageParams }

type userDeliveryIn struct {
	ID string `path:"id" maxLength:"64" doc:"Delivery id"`
}

func (s *Server) webhookSecretRoutes() {
	for _, g := range []struct{ prefix, id string }{{"/v1/api", "api"}, {"/v1/user", "user"}} {
		sec := apiKeySecurity
		if g.id == "user" {
			sec = userSecurity
		}
		o := func(method, path, id, summary string) huma.Operation {
			return huma.Operation{OperationID: g.id + id, Method: method, Path: g.prefix + path, Summary: summary,
				Tags: []string{"webhooks"}, Security: sec}
		}
		op(s, o(http.MethodGet, "/webhook-secret", "GetWebhookSecret", "Whether I have a webhook signing secret (never the secret)"), s.getWebhookSecret)
		op(s, o(http.MethodPost, "/webhook-secret/rotate", "RotateWebhookSecret",
			"Make a new webhook signing secret, replacing mine; shown only in this answer"), s.rotateWebhookSecret)
		op(s, o(http.MethodGet, "/webhook-deliveries", "ListUserWebhookDeliveries",
			"My user-level webhook deliveries (job.finished), newest first"), s.listUserDeliveries)
		op(s, withErrors(o(http.MethodPost, "/webhook-deliveries/{id}/retry", "RetryUserWebhookDelivery",
			"Send a dead_letter user-level delivery again, once"), map[int]string{409: "delivery_not_dead: only a dead_letter delivery can be retried"}),
			s.retryUserDelivery)
	}
}

func (s *Server) getWebhookSecret(ctx context.Context, _ *struct{}) (*webhookSecretOut, error) {
	st, err := s.cfg.Deliveries.WebhookSecretStatus(ctx, ownerOf(ctx))
	if err != nil {
		return nil, err
	}
	out := &webhookSecretOut{}
	out.Body.Configured, out.Body.CreatedAt = st.Configured, st.CreatedAt
	return out, nil
}

func (s *Server) rotateWebhookSecret(ctx context.Context, _ *struct{}) (*rotatedSecretOut, error) {
	secret, at, err := s.cfg.Deliveries.RotateWebhookSecret(ctx, ownerOf(ctx))
	if err != nil {
		return nil, err
	}
	out := &rotatedSecretOut{}
	out.Body.Secret, out.Body.CreatedAt = string(secret), at
	return out, nil
}

func (s *Server) listUserDeliveries(ctx context.Context, in *userDeliveriesIn) (*pagedOut[DeliveryRow], error) {
	page, err := s.cfg.Deliveries.ListUserDeliveries(ctx, ownerOf(ctx), in.page())
	if err != nil {
		return nil, err
	}
	return &pagedOut[DeliveryRow]{Body: paging.Map(page, deliveryRow)}, nil
}

func (s *Server) retryUserDelivery(ctx context.Context, in *userDeliveryIn) (*deliveryOut, error) {
	d, err := s.cfg.Deliveries.RetryUserDelivery(ctx, ownerOf(ctx), in.ID)
	if err != nil {
		return nil, err
	}
	return &deliveryOut{Body: deliveryRow(d)}, nil
}
