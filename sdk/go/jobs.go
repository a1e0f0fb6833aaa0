package hostgate

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Jobs: one operation run on many hosts, chosen by ids, tags or a saved
// filter, with a result per host (docs/jobs.md).

// JobTarget picks a job's hosts: exactly one of the three is set.
type JobTarget struct {
	HostIDs []string `json:"host_ids,omitempty"`
	// Tags are tag expressions, all of which must match: "env=prod" (the
	// key with that value), "role" (the key, any value), "role=" (the key
	// with the empty value).
	Tags     []string `json:"tags,omitempty"`
	FilterID string   `json:"filter_id,omitempty"`
}

// JobOperation is what a job runs on each host: the body of controls/raw.
type JobOperation struct {
	Controls int64  `json:"controls"`
	Path     string `json:"path,omitempty"`
	Data     any    `json:"data,omitempty"`
}

// ShellOperation is the operation of Shell (process/shell): program with
// args (one string), its process tree killed at timeoutS seconds (0: the
// hub's default, 60).
func ShellOperation(program, args string, timeoutS int) JobOperation {
	data := map[string]any{"args": args}
	if timeoutS > 0 {
		data["timeout_s"] = timeoutS
	}
	return JobOperation{Controls: CtlExecShell, Path: program, Data: data}
}

// JobWaves releases a job's hosts in waves of Size, PauseS seconds apart;
// the job stops when the failed share of its finished runs exceeds
// StopIfFailedPct after a wave (nil: never).
type JobWaves struct {
	Size            int  `json:"size"`
	PauseS          int  `json:"pause_s,omitempty"`
	StopIfFailedPct *int `json:"stop_if_failed_pct,omitempty"`
}

// JobRequest is the body of CreateJob and DryRunJob. Zero values take the
// hub's defaults: Offline "skip", ExpiresInS 3600, Concurrency 50.
type JobRequest struct {
	Name      string       `json:"name,omitempty"`
	Target    JobTarget    `json:"target"`
	Operation JobOperation `json:"operation"`
	// Offline is "skip" (a host not connected ends skipped host_offline)
	// or "queue" (it runs when it connects, until the job expires).
	Offline     string    `json:"offline,omitempty"`
	ExpiresInS  int       `json:"expires_in_s,omitempty"`
	Concurrency int       `json:"concurrency,omitempty"`
	NotifyURL   string    `json:"notify_url,omitempty"`
	Waves       *JobWaves `json:"waves,omitempty"`
}

// JobTotals counts a job's runs by state.
type JobTotals struct {
	Queued    int `json:"queued"`
	Running   int `json:"running"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	Expired   int `json:"expired"`
	Canceled  int `json:"canceled"`
}

// Job is a job and its progress.
type Job struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	State     string    `json:"state"` // running, finished, canceled
	HostCount int       `json:"host_count"`
	Totals    JobTotals `json:"totals"`
	Target    JobTarget `json:"target"`
	Operation struct {
		Controls int64           `json:"controls"`
		Path     string          `json:"path,omitempty"`
		Data     json.RawMessage `json:"data,omitempty"`
	} `json:"operation"`
	Offline     string    `json:"offline"`
	Concurrency int       `json:"concurrency"`
	ExpiresAt   time.Time `json:"expires_at"`
	Waves       *JobWaves `json:"waves"`
	Wave        int       `json:"wave"`
	// StopReason is "", insufficient_balance, failure_threshold or canceled.
	StopReason string     `json:"stop_reason"`
	NotifyURL  string     `json:"notify_url"`
	RetryOf    *string    `json:"retry_of"`
	ScheduleID *string    `json:"schedule_id"`
	Charged    float64    `json:"charged"`
	CreatedAt  time.Time  `json:"created_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

// Final reports a job that will not change any more: finished or
// canceled, and no run still running.
func (j Job) Final() bool { return j.State != "running" && j.FinishedAt != nil }

// Succeeded reports a final job every host of which succeeded.
func (j Job) Succeeded() bool {
	return j.Final() && j.HostCount > 0 && j.Totals.Succeeded == j.HostCount
}

// JobDryRun answers DryRunJob: what the job would target and the most it
// can cost. Nothing is recorded or charged.
type JobDryRun struct {
	HostCount        int      `json:"host_count"`
	HostIDs          []string `json:"host_ids"`
	HostIDsTruncated bool     `json:"host_ids_truncated"`
	MaxCost          float64  `json:"max_cost"`
}

// JobResult is one host's run of a job. Stdout and Stderr are the first
// 4096 bytes of each stream (JobOutput has the whole output); for an
// operation other than a process, Stdout is the agent's JSON result and
// ExitCode nil.
type JobResult struct {
	HostID          string     `json:"host_id"`
	HostName        string     `json:"host_name"`
	State           string     `json:"state"` // queued, running, succeeded, failed, skipped, expired, canceled
	Wave            int        `json:"wave"`
	ExitCode        *int       `json:"exit_code"`
	Stdout          string     `json:"stdout"`
	Stderr          string     `json:"stderr"`
	OutputTruncated bool       `json:"output_truncated"`
	Error           string     `json:"error"`
	Message         string     `json:"message"`
	Charged         float64    `json:"charged"`
	StartedAt       *time.Time `json:"started_at"`
	FinishedAt      *time.Time `json:"finished_at"`
}

// JobOutput is one host's whole output, kept for a while after its run.
type JobOutput struct {
	HostID   string          `json:"host_id"`
	ExitCode *int            `json:"exit_code"`
	Stdout   string          `json:"stdout"`
	Stderr   string          `json:"stderr"`
	Result   json.RawMessage `json:"result"`
}

// Page is one page of a paged list. NextCursor, when not "", continues
// the list after this page: pass it as the cursor of the same call (same
// other arguments, offset 0); a deep page costs the hub what the first
// does. It is "" on the last page.
type Page[T any] struct {
	Items      []T    `json:"items"`
	Total      int    `json:"total"`
	Limit      int    `json:"limit"`
	Offset     int    `json:"offset"`
	NextCursor string `json:"next_cursor,omitempty"`
}

func jobPath(id string) string { return "/v1/api/jobs/" + url.PathEscape(id) }

// pageQuery is "?limit=…&offset=…" with the non-zero ones and the
// non-empty extra parameters.
func pageQuery(limit, offset int, extra ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] != "" {
			q.Set(extra[i], extra[i+1])
		}
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// CreateJob starts a job. The target is resolved now; a host id that is
// not the key holder's refuses the whole job (404 not_found), and a target
// matching no host is 400 empty_target. Each run is charged when it runs.
func (c *Client) CreateJob(ctx context.Context, req JobRequest) (Job, error) {
	var j Job
	err := c.do(ctx, http.MethodPost, "/v1/api/jobs", req, &j)
	return j, err
}

// DryRunJob resolves req's target and prices it, recording and charging
// nothing.
func (c *Client) DryRunJob(ctx context.Context, req JobRequest) (JobDryRun, error) {
	body := struct {
		JobRequest
		DryRun bool `json:"dry_run"`
	}{req, true}
	var out JobDryRun
	err := c.do(ctx, http.MethodPost, "/v1/api/jobs", body, &out)
	return out, err
}

// GetJob returns a job with its totals.
func (c *Client) GetJob(ctx context.Context, jobID string) (Job, error) {
	var j Job
	err := c.do(ctx, http.MethodGet, jobPath(jobID), nil, &j)
	return j, err
}

// ListJobs lists the key holder's jobs, newest first; state "" for all,
// else running, finished or canceled (limit 0: the hub's default of 50;
// at most 200).
// A cursor (a page's NextCursor) continues after that page.
func (c *Client) ListJobs(ctx context.Context, state string, limit, offset int, cursor ...string) (Page[Job], error) {
	var p Page[Job]
	err := c.do(ctx, http.MethodGet, "/v1/api/jobs"+pageQuery(limit, offset, "state", state, "cursor", first(cursor)), nil, &p)
	return p, err
}

// CancelJob cancels a job: its queued runs end canceled, running ones
// finish. A finished job is 409 job_finished; canceling twice is fine.
func (c *Client) CancelJob(ctx context.Context, jobID string) (Job, error) {
	var j Job
	err := c.do(ctx, http.MethodPost, jobPath(jobID)+"/cancel", nil, &j)
	return j, err
}

// RetryJob starts a new job over the hosts of jobID whose runs ended in
// one of states (nil: failed only; any of failed, skipped, expired,
// canceled), with the same operation and options.
func (c *Client) RetryJob(ctx context.Context, jobID string, states []string) (Job, error) {
	var body any
	if len(states) > 0 {
		body = map[string][]string{"states": states}
	}
	var j Job
	err := c.do(ctx, http.MethodPost, jobPath(jobID)+"/retry", body, &j)
	return j, err
}

// jobPollInterval is how often WaitJob polls: from the first to the last,
// doubling.
var jobPollInterval = [2]time.Duration{250 * time.Millisecond, 2 * time.Second}

// WaitJob polls the job until it is final (Job.Final) and returns it. At
// timeout (0: no limit but ctx's) it returns the job as last seen and an
// error matching context.DeadlineExceeded.
func (c *Client) WaitJob(ctx context.Context, jobID string, timeout time.Duration) (Job, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	var last Job
	wait := jobPollInterval[0]
	for {
		j, err := c.GetJob(ctx, jobID)
		if err != nil {
			if ctx.Err() != nil && last.ID != "" {
				return last, fmt.Errorf("hostgate: job %s not final: %w", jobID, ctx.Err())
			}
			return last, err
		}
		if last = j; j.Final() {
			return j, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return last, fmt.Errorf("hostgate: job %s not final: %w", jobID, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, jobPollInterval[1])
	}
}

// ListJobResults returns one page of a job's results, in the job's host
// order; state "" for all (limit 0: the hub's default of 50; at most 200).
// A cursor (a page's NextCursor) continues after that page.
func (c *Client) ListJobResults(ctx context.Context, jobID, state string, limit, offset int, cursor ...string) (Page[JobResult], error) {
	var p Page[JobResult]
	err := c.do(ctx, http.MethodGet, jobPath(jobID)+"/results"+pageQuery(limit, offset, "state", state, "cursor", first(cursor)), nil, &p)
	return p, err
}

// JobResults iterates over every result of a job (of one state, or all
// when state is ""), fetching pages of 200 as it goes; an error ends the
// iteration after being yielded.
//
//	for r, err := range c.JobResults(ctx, job.ID, "") { … }
func (c *Client) JobResults(ctx context.Context, jobID, state string) iter.Seq2[JobResult, error] {
	return pages(func(limit, offset int, cursor string) (Page[JobResult], error) {
		return c.ListJobResults(ctx, jobID, state, limit, offset, cursor)
	})
}

// pages iterates over the items of a paged list, 200 at a time: by each
// page's NextCursor (keyset paging: every item once, however deep, even
// as items are added), or by offset from a list that gives none.
func pages[T any](fetch func(limit, offset int, cursor string) (Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		const size = 200
		offset, cursor := 0, ""
		for {
			p, err := fetch(size, offset, cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range p.Items {
				if !yield(it, nil) {
					return
				}
			}
			if p.NextCursor != "" {
				offset, cursor = 0, p.NextCursor
				continue
			}
			offset += len(p.Items)
			if len(p.Items) == 0 || cursor != "" || offset >= p.Total {
				return
			}
		}
	}
}

// first is the first of an optional argument, or "".
func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// collect gathers every item of a paged list.
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	out := []T{}
	for it, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, it)
	}
	return out, nil
}

// JobOutput returns one host's whole output of a job (404 not_found once
// the hub has dropped it, by default 7 days after the run).
func (c *Client) JobOutput(ctx context.Context, jobID, hostID string) (JobOutput, error) {
	var o JobOutput
	err := c.do(ctx, http.MethodGet, jobPath(jobID)+"/results/"+url.PathEscape(hostID)+"/output", nil, &o)
	return o, err
}
