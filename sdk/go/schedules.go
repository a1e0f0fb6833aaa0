package hostgate

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Schedules run a job template once at a time or on a cron schedule, and
// the user's webhook secret signs job.finished deliveries (docs/jobs.md).

// ScheduleRequest is the body of CreateSchedule: exactly one of At and
// Cron ("*/5 * * * *", five fields, in Timezone, an IANA name; "" is UTC).
type ScheduleRequest struct {
	Name     string     `json:"name"`
	Job      JobRequest `json:"job"`
	At       *time.Time `json:"at,omitempty"`
	Cron     string     `json:"cron,omitempty"`
	Timezone string     `json:"timezone,omitempty"`
	Paused   bool       `json:"paused,omitempty"`
}

// Schedule is a saved schedule.
type Schedule struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Job       JobRequest `json:"job"`
	At        *time.Time `json:"at"`
	Cron      *string    `json:"cron"`
	Timezone  string     `json:"timezone"`
	Paused    bool       `json:"paused"`
	NextRunAt *time.Time `json:"next_run_at"`
	LastRunAt *time.Time `json:"last_run_at"`
	LastJobID *string    `json:"last_job_id"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

// ScheduleRun is one firing of a schedule: the job it started, or the
// error that kept it from starting.
type ScheduleRun struct {
	// At is the planned time; FiredAt when a hub started it (later for a
	// run caught up after downtime).
	At      time.Time `json:"at"`
	FiredAt time.Time `json:"fired_at"`
	JobID   *string   `json:"job_id"`
	Error   string    `json:"error"`
	Message string    `json:"message"`
}

func schedulePath(id string) string { return "/v1/api/schedules/" + url.PathEscape(id) }

// ListSchedules lists the key holder's schedules.
func (c *Client) ListSchedules(ctx context.Context) ([]Schedule, error) {
	return collect(pages(func(limit, offset int, cursor string) (Page[Schedule], error) {
		var p Page[Schedule]
		err := c.do(ctx, http.MethodGet, "/v1/api/schedules"+pageQuery(limit, offset, "cursor", cursor), nil, &p)
		return p, err
	}))
}

// GetSchedule returns one schedule.
func (c *Client) GetSchedule(ctx context.Context, scheduleID string) (Schedule, error) {
	var s Schedule
	err := c.do(ctx, http.MethodGet, schedulePath(scheduleID), nil, &s)
	return s, err
}

// CreateSchedule saves a schedule; its job is validated as CreateJob
// would, its target resolved at each run (at most 100: 409 limit_reached).
func (c *Client) CreateSchedule(ctx context.Context, req ScheduleRequest) (Schedule, error) {
	var s Schedule
	err := c.do(ctx, http.MethodPost, "/v1/api/schedules", req, &s)
	return s, err
}

// ScheduleUpdate is the body of UpdateSchedule: empty members keep the
// schedule's; At or Cron replaces its timing.
type ScheduleUpdate struct {
	Name     string      `json:"name,omitempty"`
	Job      *JobRequest `json:"job,omitempty"`
	At       *time.Time  `json:"at,omitempty"`
	Cron     string      `json:"cron,omitempty"`
	Timezone string      `json:"timezone,omitempty"`
}

// UpdateSchedule changes a schedule; its next run is recomputed from now.
func (c *Client) UpdateSchedule(ctx context.Context, scheduleID string, req ScheduleUpdate) (Schedule, error) {
	var s Schedule
	err := c.do(ctx, http.MethodPatch, schedulePath(scheduleID), req, &s)
	return s, err
}

// PauseSchedule stops a schedule from firing until ResumeSchedule.
func (c *Client) PauseSchedule(ctx context.Context, scheduleID string) (Schedule, error) {
	var s Schedule
	err := c.do(ctx, http.MethodPost, schedulePath(scheduleID)+"/pause", nil, &s)
	return s, err
}

// ResumeSchedule lets a paused schedule fire again from its next time.
func (c *Client) ResumeSchedule(ctx context.Context, scheduleID string) (Schedule, error) {
	var s Schedule
	err := c.do(ctx, http.MethodPost, schedulePath(scheduleID)+"/resume", nil, &s)
	return s, err
}

// DeleteSchedule deletes a schedule; jobs it started are kept.
func (c *Client) DeleteSchedule(ctx context.Context, scheduleID string) error {
	return c.do(ctx, http.MethodDelete, schedulePath(scheduleID), nil, nil)
}

// ScheduleRuns returns one page of a schedule's history, newest first
// (limit 0: the hub's default of 50; at most 200).
// A cursor (a page's NextCursor) continues after that page.
func (c *Client) ScheduleRuns(ctx context.Context, scheduleID string, limit, offset int, cursor ...string) (Page[ScheduleRun], error) {
	var p Page[ScheduleRun]
	err := c.do(ctx, http.MethodGet, schedulePath(scheduleID)+"/runs"+pageQuery(limit, offset, "cursor", first(cursor)), nil, &p)
	return p, err
}

// WebhookSecret is the user's webhook secret, which signs job.finished
// deliveries: Secret ("whsec_…") only in RotateWebhookSecret's answer,
// shown once.
type WebhookSecret struct {
	Configured bool       `json:"configured"`
	Secret     string     `json:"secret,omitempty"`
	CreatedAt  *time.Time `json:"created_at"`
}

// GetWebhookSecret says whether the user has a webhook secret, and since
// when.
func (c *Client) GetWebhookSecret(ctx context.Context) (WebhookSecret, error) {
	var s WebhookSecret
	err := c.do(ctx, http.MethodGet, "/v1/api/webhook-secret", nil, &s)
	return s, err
}

// RotateWebhookSecret issues a new webhook secret (the first, or one that
// replaces the last at once) and returns it; it is not shown again.
func (c *Client) RotateWebhookSecret(ctx context.Context) (WebhookSecret, error) {
	var s WebhookSecret
	err := c.do(ctx, http.MethodPost, "/v1/api/webhook-secret/rotate", nil, &s)
	s.Configured = s.Configured || s.Secret != ""
	return s, err
}

// ListUserWebhookDeliveries returns one page of the user's user-level
// webhook deliveries (job.finished), newest first (limit 0: the hub's
// default of 50; at most 200). A host's deliveries are WebhookDeliveries.
// A cursor (a page's NextCursor) continues after that page.
func (c *Client) ListUserWebhookDeliveries(ctx context.Context, limit, offset int, cursor ...string) (Page[WebhookDelivery], error) {
	var p Page[WebhookDelivery]
	err := c.do(ctx, http.MethodGet, "/v1/api/webhook-deliveries"+pageQuery(limit, offset, "cursor", first(cursor)), nil, &p)
	return p, err
}

// RetryUserWebhookDelivery sends a dead_letter user-level delivery again,
// once (another user's or a host's delivery: 404 not_found; any other
// state: 409 delivery_not_dead).
func (c *Client) RetryUserWebhookDelivery(ctx context.Context, deliveryID string) (WebhookDelivery, error) {
	var d WebhookDelivery
	err := c.do(ctx, http.MethodPost, "/v1/api/webhook-deliveries/"+url.PathEscape(deliveryID)+"/retry", nil, &d)
	return d, err
}
