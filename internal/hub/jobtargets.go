package hub

import (
	"context"
	"fmt"
	"slices"

	"hostgate/internal/apperr"
	"hostgate/internal/hosts"
	"hostgate/internal/jobs"
	"hostgate/internal/operations"
	"hostgate/internal/paging"
)

// jobTargets resolves a job's target for package jobs. TEMPORARY: it
// supports host_ids only, until hosts.Service.Select (tags and saved
// filters, issue 26 §1) is merged; the integrator rewires jobs.Targets to
// it.
type jobTargets struct{ hosts *hosts.Service }

// Select implements jobs.Targets: every id must be owner's undeleted host
// (else 404 not_found, whole); the ids come back in the hosts' creation
// order, without repeats.
func (t jobTargets) Select(ctx context.Context, owner string, sel jobs.Target, max int) ([]string, error) {
	if len(sel.HostIDs) == 0 {
		return nil, apperr.New(apperr.CodeInvalidBody, "not yet: tags and filter_id targets come with host tags; use host_ids")
	}
	owned, err := t.hosts.List(ctx, owner)
	if err != nil {
		return nil, err
	}
	want := make(map[string]bool, len(sel.HostIDs))
	for _, id := range sel.HostIDs {
		want[id] = true
	}
	var out []string
	for _, h := range slices.Backward(owned) { // List is newest first
		if want[h.ID] {
			out = append(out, h.ID)
			delete(want, h.ID)
		}
	}
	if len(want) > 0 {
		return nil, apperr.NotFound("host")
	}
	if len(out) > max {
		return nil, apperr.New(apperr.CodeInvalidBody, fmt.Sprintf("target matches more than %d hosts", max))
	}
	return out, nil
}

// operationsAndJobs is httpapi's Operations: the single-host operations
// and the jobs (whose methods would clash by name if both were embedded).
type operationsAndJobs struct {
	*operations.Service
	jobs *jobs.Service
}

func (o operationsAndJobs) CreateJob(ctx context.Context, c jobs.Creator, r jobs.Request) (jobs.Created, error) {
	return o.jobs.Create(ctx, c, r)
}

func (o operationsAndJobs) GetJob(ctx context.Context, owner, id string) (jobs.Job, error) {
	return o.jobs.Get(ctx, owner, id)
}

func (o operationsAndJobs) ListJobs(ctx context.Context, owner string, state jobs.JobState, p paging.Page) (paging.Result[jobs.Job], error) {
	return o.jobs.List(ctx, owner, state, p)
}

func (o operationsAndJobs) CancelJob(ctx context.Context, owner, id string) (jobs.Job, error) {
	return o.jobs.Cancel(ctx, owner, id)
}

func (o operationsAndJobs) RetryJob(ctx context.Context, c jobs.Creator, id string, states []jobs.RunState) (jobs.Job, error) {
	return o.jobs.Retry(ctx, c, id, states)
}

func (o operationsAndJobs) JobResults(ctx context.Context, owner, id string, state jobs.RunState, p paging.Page) (paging.Result[jobs.Run], error) {
	return o.jobs.Results(ctx, owner, id, state, p)
}

func (o operationsAndJobs) JobOutput(ctx context.Context, owner, id, hostID string) (jobs.Output, error) {
	return o.jobs.Output(ctx, owner, id, hostID)
}

func (o operationsAndJobs) WatchJob(ctx context.Context, owner, id string, fn func(jobs.Job) error) error {
	return o.jobs.Watch(ctx, owner, id, fn)
}
