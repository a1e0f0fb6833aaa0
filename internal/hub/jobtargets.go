package hub

import (
	"context"
	"encoding/json"

	"hostgate/internal/hosts"
	"hostgate/internal/jobs"
	"hostgate/internal/operations"
	"hostgate/internal/paging"
)

// jobTargets resolves a job's target for package jobs through
// hosts.Service.Select (host ids, tags or a saved filter; issue 26 §1).
type jobTargets struct{ hosts *hosts.Service }

// Select implements jobs.Targets with hosts.Service.Select: every id must
// be owner's undeleted host and a filter owner's (else 404 not_found,
// whole); the ids come back in the hosts' creation order.
func (t jobTargets) Select(ctx context.Context, owner string, sel jobs.Target, max int) ([]string, error) {
	return t.hosts.Select(ctx, owner, hosts.Selector{HostIDs: sel.HostIDs, Tags: sel.Tags, FilterID: sel.FilterID}, max)
}

// scheduleJobs is the schedules' Validator: the jobs' check of a
// schedule's job (its target is resolved at each run).
type scheduleJobs struct{ jobs *jobs.Service }

func (s scheduleJobs) ValidateJob(ctx context.Context, owner string, job json.RawMessage) error {
	return s.jobs.ValidateScheduled(ctx, owner, job)
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
