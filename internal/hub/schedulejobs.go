package hub

import (
	"context"
	"encoding/json"

	"hostgate/internal/jobs"
)

// scheduleValidator is the schedules' Validator: a saved job request is
// checked as the jobs check a scheduled one (jobs.Service is the
// schedules' Starter as it is).
type scheduleValidator struct{ jobs *jobs.Service }

func (v scheduleValidator) ValidateJob(ctx context.Context, owner string, job json.RawMessage) error {
	return v.jobs.ValidateScheduled(ctx, owner, job)
}
