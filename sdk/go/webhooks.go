package hostgate

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// L1Config is a host's legacy L1 configuration (docs/webhooks.md).
type L1Config struct {
	BID       int64  `json:"bid"`
	SecretKey string `json:"secret_key"`
	// URL receives the host's webhooks; "" sends none.
	URL string `json:"url"`
	// WebhookFormat is "A" or "B"; "" keeps the host's format.
	WebhookFormat string `json:"webhook_format,omitempty"`
}

// L1ConfigResult is the answer to PutL1Config.
type L1ConfigResult struct {
	BID           int64  `json:"bid"`
	HasSecretKey  bool   `json:"has_secret_key"`
	URL           string `json:"url"`
	AgentOnline   bool   `json:"agent_online"`
	DeliveryID    string `json:"delivery_id,omitempty"`
	WebhookFormat string `json:"webhook_format"`
}

// PutL1Config writes the host's L1 configuration (charged
// control.update_l1); the agent gets it at once when online, and a webhook
// delivery is queued.
func (c *Client) PutL1Config(ctx context.Context, hostID string, cfg L1Config) (L1ConfigResult, error) {
	var out L1ConfigResult
	err := c.do(ctx, http.MethodPut, hostPath(hostID)+"/l1-config", cfg, &out)
	return out, err
}

// WebhookDelivery is one row of a host's webhook history.
type WebhookDelivery struct {
	ID            string     `json:"id"`
	EventType     string     `json:"event_type"`
	Format        string     `json:"format"`
	Status        string     `json:"status"` // pending, retrying, success, dead_letter, skipped_no_url
	Attempts      int        `json:"attempts"`
	TargetURL     string     `json:"target_url"`
	HTTPStatus    *int       `json:"http_status,omitempty"`
	LastError     string     `json:"last_error,omitempty"`
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	DeliveredAt   *time.Time `json:"delivered_at,omitempty"`
}

func deliveriesPath(hostID string) string {
	return "/v1/user/hosts/" + url.PathEscape(hostID) + "/webhook-deliveries"
}

// WebhookDeliveries returns the host's latest deliveries, newest first
// (limit 0 for the hub's default of 50; at most 200). Not charged.
func (c *Client) WebhookDeliveries(ctx context.Context, hostID string, limit int) ([]WebhookDelivery, error) {
	p := deliveriesPath(hostID)
	if limit > 0 {
		p += "?limit=" + strconv.Itoa(limit)
	}
	var out struct {
		Items []WebhookDelivery `json:"items"`
	}
	err := c.do(ctx, http.MethodGet, p, nil, &out)
	return out.Items, err
}

// RetryWebhookDelivery sends a dead_letter delivery again, once.
func (c *Client) RetryWebhookDelivery(ctx context.Context, hostID, deliveryID string) (WebhookDelivery, error) {
	var out WebhookDelivery
	err := c.do(ctx, http.MethodPost, deliveriesPath(hostID)+"/"+url.PathEscape(deliveryID)+"/retry", nil, &out)
	return out, err
}
