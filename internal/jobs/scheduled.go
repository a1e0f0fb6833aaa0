package jobs

import (
	"bytes"
	"context"
	"encoding/json"

	"hostgate/internal/operations"
)

// requestJSON is a job request as JSON, the body of POST /v1/api/jobs
// (without dry_run, which a schedule does not take).
type requestJSON struct {
	Name      string `json:"name"`
	Target    Target `json:"target"`
	Operation struct {
		Controls int64           `json:"controls"`
		Path     string          `json:"path"`
		Data     json.RawMessage `json:"data"`
	} `json:"operation"`
	Offline     string `json:"offline"`
	ExpiresInS  int    `json:"expires_in_s"`
	Concurrency int    `json:"concurrency"`
	NotifyURL   string `json:"notify_url"`
	Waves       *Waves `json:"waves"`
}

// DecodeRequest reads a job request saved as JSON (a schedule's job):
// unknown fields and bad JSON are 400 invalid_body.
func DecodeRequest(raw json.RawMessage) (Request, error) {
	var b requestJSON
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return Request{}, invalid("job: %v", err)
	}
	return Request{Name: b.Name, Target: b.Target, Offline: b.Offline, ExpiresInS: b.ExpiresInS, Concurrency: b.Concurrency,
		NotifyURL: b.NotifyURL, Waves: b.Waves,
		Operation: Operation{Controls: b.Operation.Controls, Path: b.Operation.Path, Data: b.Operation.Data}}, nil
}

// ValidateScheduled checks a schedule's job as Create would, except its
// target, which is resolved at each run: the shape and ranges, the
// operation (the controls/raw codes) and, for a notify_url, the owner's
// webhook secret.
func (s *Service) ValidateScheduled(ctx context.Context, owner string, job json.RawMessage) error {
	r, err := DecodeRequest(job)
	if err != nil {
		return err
	}
	if r, err = Normalize(r, s.cfg.MaxHosts); err != nil {
		return err
	}
	if _, err := operations.Prepare("", r.Operation.Controls, r.Operation.Path, r.Operation.Data); err != nil {
		return err
	}
	return s.checkNotify(ctx, owner, r.NotifyURL)
}

// StartScheduled starts a schedule's job for its owner (charged to the
// owner, no API key) and returns the job's id; schedules.Starter.
func (s *Service) StartScheduled(ctx context.Context, owner, scheduleID string, job json.RawMessage) (string, error) {
	r, err := DecodeRequest(job)
	if err != nil {
		return "", err
	}
	c, err := s.Create(ctx, Creator{UserID: owner, ScheduleID: scheduleID}, r)
	if err != nil {
		return "", err
	}
	return c.Job.ID, nil
}
