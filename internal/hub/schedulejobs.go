package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"hostgate/internal/apperr"
	"hostgate/internal/deliveries"
	"hostgate/internal/jobs"
	"hostgate/internal/operations"
)

// scheduleJobs connects the schedules to the jobs (schedules.Validator
// and schedules.Starter): a saved job request is the body of POST
// /v1/api/jobs without dry_run, validated at save as a job would be
// except for its target, which is resolved at each run.
type scheduleJobs struct {
	jobs     *jobs.Service
	secrets  *deliveries.Secrets
	maxHosts int
}

// savedJob is the JSON of a saved job request.
type savedJob struct {
	Name      string      `json:"name"`
	Target    jobs.Target `json:"target"`
	Operation struct {
		Controls int64           `json:"controls"`
		Path     string          `json:"path"`
		Data     json.RawMessage `json:"data"`
	} `json:"operation"`
	Offline     string      `json:"offline"`
	ExpiresInS  int         `json:"expires_in_s"`
	Concurrency int         `json:"concurrency"`
	NotifyURL   string      `json:"notify_url"`
	Waves       *jobs.Waves `json:"waves"`
}

func (s scheduleJobs) parse(raw json.RawMessage) (jobs.Request, error) {
	var b savedJob
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return jobs.Request{}, apperr.New(apperr.CodeInvalidBody, fmt.Sprintf("job: %v", err))
	}
	if string(b.Operation.Data) == "null" {
		b.Operation.Data = nil
	}
	r := jobs.Request{Name: b.Name, Target: b.Target, Offline: b.Offline, ExpiresInS: b.ExpiresInS, Concurrency: b.Concurrency,
		NotifyURL: b.NotifyURL, Waves: b.Waves,
		Operation: jobs.Operation{Controls: b.Operation.Controls, Path: b.Operation.Path, Data: b.Operation.Data}}
	max := s.maxHosts
	if max <= 0 {
		max = jobs.DefaultMaxHosts
	}
	return jobs.Normalize(r, max)
}

// ValidateJob implements schedules.Validator.
func (s scheduleJobs) ValidateJob(ctx context.Context, owner string, raw json.RawMessage) error {
	r, err := s.parse(raw)
	if err != nil {
		return err
	}
	if _, err := operations.Prepare("", r.Operation.Controls, r.Operation.Path, r.Operation.Data); err != nil {
		return err
	}
	if r.NotifyURL != "" {
		return s.secrets.CheckSecret(ctx, owner)
	}
	return nil
}

// StartScheduled implements schedules.Starter: the job is created as the
// schedule's owner, with no API key.
func (s scheduleJobs) StartScheduled(ctx context.Context, owner, scheduleID string, raw json.RawMessage) (string, error) {
	r, err := s.parse(raw)
	if err != nil {
		return "", err
	}
	c, err := s.jobs.Create(ctx, jobs.Creator{UserID: owner, ScheduleID: scheduleID}, r)
	if err != nil {
		return "", err
	}
	return c.Job.ID, nil
}
