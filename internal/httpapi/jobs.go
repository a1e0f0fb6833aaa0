package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/jobs"
	"hostgate/internal/paging"
)

// Jobs runs operations across a user's hosts (jobs.Service, through the
// hub); embedded in Operations so that Config keeps its twelve fields.
type Jobs interface {
	CreateJob(ctx context.Context, c jobs.Creator, r jobs.Request) (jobs.Created, error)
	GetJob(ctx context.Context, owner, id string) (jobs.Job, error)
	ListJobs(ctx context.Context, owner string, state jobs.JobState, p paging.Page) (paging.Result[jobs.Job], error)
	CancelJob(ctx context.Context, owner, id string) (jobs.Job, error)
	RetryJob(ctx context.Context, c jobs.Creator, id string, states []jobs.RunState) (jobs.Job, error)
	JobResults(ctx context.Context, owner, id string, state jobs.RunState, p paging.Page) (paging.Result[jobs.Run], error)
	JobOutput(ctx context.Context, owner, id, hostID string) (jobs.Output, error)
	WatchJob(ctx context.Context, owner, id string, fn func(jobs.Job) error) error
}

// JobWaves is a job's waves in a request.
type JobWaves struct {
	Size            int  `json:"size" doc:"Hosts per wave, 1 to 100000"`
	PauseS          int  `json:"pause_s,omitempty" doc:"Seconds between a wave's end and the next, 0 to 86400"`
	StopIfFailedPct *int `json:"stop_if_failed_pct,omitempty" doc:"Stop the job when more than this percentage of its finished runs failed, 0 to 100"`
}

// JobOperation is a job's operation, as controls/raw takes it.
type JobOperation struct {
	Controls int64  `json:"controls" doc:"Operation code (docs/operations.md)"`
	Path     string `json:"path,omitempty"`
	Data     any    `json:"data,omitempty"`
}

// JobRequest is the body of POST /v1/api/jobs (docs/jobs.md).
type JobRequest struct {
	Name        string       `json:"name,omitempty" doc:"At most 100 characters"`
	Target      jobs.Target  `json:"target" doc:"Exactly one of host_ids, tags, filter_id"`
	Operation   JobOperation `json:"operation"`
	Offline     string       `json:"offline,omitempty" doc:"skip (default) or queue"`
	ExpiresInS  int          `json:"expires_in_s,omitempty" doc:"60 to 604800 (default 3600)"`
	Concurrency int          `json:"concurrency,omitempty" doc:"Runs at once, 1 to 1000 (default 50)"`
	DryRun      bool         `json:"dry_run,omitempty" doc:"Resolve and price only: nothing is recorded or charged"`
	NotifyURL   string       `json:"notify_url,omitempty" doc:"http(s) URL that receives job.finished (needs a webhook secret)"`
	Waves       *JobWaves    `json:"waves,omitempty"`
}

func (b JobRequest) request() (jobs.Request, error) {
	r := jobs.Request{Name: b.Name, Target: b.Target, Offline: b.Offline, ExpiresInS: b.ExpiresInS, Concurrency: b.Concurrency,
		DryRun: b.DryRun, NotifyURL: b.NotifyURL,
		Operation: jobs.Operation{Controls: b.Operation.Controls, Path: b.Operation.Path}}
	if b.Operation.Data != nil {
		raw, err := json.Marshal(b.Operation.Data)
		if err != nil {
			return r, err
		}
		r.Operation.Data = raw
	}
	if b.Waves != nil {
		r.Waves = &jobs.Waves{Size: b.Waves.Size, PauseS: b.Waves.PauseS, StopIfFailedPct: b.Waves.StopIfFailedPct}
	}
	return r, nil
}

// JobCreated is a created job (201) or, for a dry run, what the job
// would do (200).
type JobCreated struct {
	*jobs.JobView
	*jobs.DryRun
}

type createJobIn struct{ Body JobRequest }

type createJobOut struct {
	Status int
	Body   JobCreated
}

type JobIDParam struct {
	ID string `path:"id" maxLength:"64" doc:"Job id"`
}

type jobOut struct{ Body jobs.JobView }

type listJobsIn struct {
	State string `query:"state" enum:"running,finished,canceled" doc:"Only jobs in this state"`
	PageParams
}

type resultsIn struct {
	JobIDParam
	State string `query:"state" enum:"queued,running,succeeded,failed,skipped,expired,canceled" doc:"Only runs in this state"`
	PageParams
}

type outputIn struct {
	JobIDParam
	HostID string `path:"host_id" maxLength:"64" doc:"Host id"`
}

type outputOut struct{ Body jobs.RunOutput }

type retryJobIn struct {
	JobIDParam
	Body *struct {
		States []string `json:"states,omitempty" doc:"Run states to retry: failed (default), skipped, expired, canceled"`
	}
}

type createdJobOut struct {
	Status int
	Body   jobs.JobView
}

// creatorOf is who a jobs request acts for: a console user, or an API key
// (whose id the charges carry).
func creatorOf(ctx context.Context) jobs.Creator {
	if u := userOf(ctx); u.UserID != "" {
		return jobs.Creator{UserID: u.UserID}
	}
	c := clientOf(ctx)
	return jobs.Creator{UserID: c.UserID, APIKeyID: c.KeyID}
}

func (s *Server) jobRoutes() {
	tags := []string{"jobs"}
	for _, side := range []struct {
		prefix, id string
		sec        []map[string][]string
	}{{"/v1/api", "api", apiKeySecurity}, {"/v1/user", "user", userSecurity}} {
		o := func(method, path, id, summary string) huma.Operation {
			return huma.Operation{OperationID: side.id + id, Method: method, Path: side.prefix + path, Summary: summary,
				Tags: tags, Security: side.sec}
		}
		c := o(http.MethodPost, "/jobs", "CreateJob", "Run an operation on many hosts (201 job; 200 for a dry run)")
		c.DefaultStatus = http.StatusCreated
		op(s, c, s.createJob)
		op(s, o(http.MethodGet, "/jobs", "ListJobs", "List my jobs, newest first"), s.listJobs)
		op(s, o(http.MethodGet, "/jobs/{id}", "GetJob", "Get a job with its totals"), s.getJob)
		op(s, o(http.MethodPost, "/jobs/{id}/cancel", "CancelJob", "Cancel a job: queued runs end canceled"), s.cancelJob)
		r := o(http.MethodPost, "/jobs/{id}/retry", "RetryJob", "Start a new job over the hosts whose runs failed (or ended in the given states)")
		r.DefaultStatus = http.StatusCreated
		op(s, r, s.retryJob)
		op(s, o(http.MethodGet, "/jobs/{id}/results", "JobResults", "A job's runs, in host order"), s.jobResults)
		op(s, o(http.MethodGet, "/jobs/{id}/results/{host_id}/output", "JobOutput", "A run's whole output, while kept"), s.jobOutput)
		s.raw("GET "+side.prefix+"/jobs/{id}/events", s.jobEvents, huma.Operation{OperationID: side.id + "JobEvents",
			Summary: "Server-sent events: the job whenever it changes, until it is final", Tags: tags, Security: side.sec,
			Responses: map[string]*huma.Response{"200": {Description: "text/event-stream of `event: job` with the job JSON",
				Content: map[string]*huma.MediaType{"text/event-stream": {Schema: &huma.Schema{Type: "string"}}}}}})
	}
}

// The jobs routes' answers besides the common ones (openapi_answers.go):
// the create route's dry run (200) and its target's 404; a finished job's
// cancel (409); the event stream's refusals.
func init() {
	for _, side := range []string{"api", "user"} {
		extraErrors[side+"CreateJob"] = []int{404}
		extraErrors[side+"CancelJob"] = []int{409}
		extraErrors[side+"JobEvents"] = []int{400, 401, 403, 404}
		answerDocs[side+"CreateJob"] = func(o *huma.Operation, _ *answerDoc) {
			if r := o.Responses["201"]; r != nil {
				o.Responses["200"] = &huma.Response{Description: "Dry run: host_count, host_ids (at most 10000), host_ids_truncated, max_cost; nothing recorded or charged",
					Content: r.Content}
			}
		}
	}
}

// MarshalJSON writes the job or the dry run, whichever is set.
func (c JobCreated) MarshalJSON() ([]byte, error) {
	if c.DryRun != nil {
		return json.Marshal(c.DryRun)
	}
	return json.Marshal(c.JobView)
}

func (s *Server) createJob(ctx context.Context, in *createJobIn) (*createJobOut, error) {
	r, err := in.Body.request()
	if err != nil {
		return nil, err
	}
	c, err := s.cfg.Operations.CreateJob(ctx, creatorOf(ctx), r)
	if err != nil {
		return nil, err
	}
	if c.DryRun != nil {
		return &createJobOut{Status: http.StatusOK, Body: JobCreated{DryRun: c.DryRun}}, nil
	}
	v := c.Job.View()
	return &createJobOut{Status: http.StatusCreated, Body: JobCreated{JobView: &v}}, nil
}

func (s *Server) listJobs(ctx context.Context, in *listJobsIn) (*pagedOut[jobs.JobView], error) {
	res, err := s.cfg.Operations.ListJobs(ctx, ownerOf(ctx), jobs.JobState(in.State), in.page())
	if err != nil {
		return nil, err
	}
	return &pagedOut[jobs.JobView]{Body: paging.Map(res, jobs.Job.View)}, nil
}

func (s *Server) getJob(ctx context.Context, in *JobIDParam) (*jobOut, error) {
	j, err := s.cfg.Operations.GetJob(ctx, ownerOf(ctx), in.ID)
	if err != nil {
		return nil, err
	}
	return &jobOut{Body: j.View()}, nil
}

func (s *Server) cancelJob(ctx context.Context, in *JobIDParam) (*jobOut, error) {
	j, err := s.cfg.Operations.CancelJob(ctx, ownerOf(ctx), in.ID)
	if err != nil {
		return nil, err
	}
	return &jobOut{Body: j.View()}, nil
}

func (s *Server) retryJob(ctx context.Context, in *retryJobIn) (*createdJobOut, error) {
	var states []jobs.RunState
	if in.Body != nil {
		for _, st := range in.Body.States {
			states = append(states, jobs.RunState(st))
		}
	}
	j, err := s.cfg.Operations.RetryJob(ctx, creatorOf(ctx), in.ID, states)
	if err != nil {
		return nil, err
	}
	return &createdJobOut{Status: http.StatusCreated, Body: j.View()}, nil
}

func (s *Server) jobResults(ctx context.Context, in *resultsIn) (*pagedOut[jobs.RunResult], error) {
	res, err := s.cfg.Operations.JobResults(ctx, ownerOf(ctx), in.ID, jobs.RunState(in.State), in.page())
	if err != nil {
		return nil, err
	}
	return &pagedOut[jobs.RunResult]{Body: paging.Map(res, jobs.Run.Result)}, nil
}

func (s *Server) jobOutput(ctx context.Context, in *outputIn) (*outputOut, error) {
	o, err := s.cfg.Operations.JobOutput(ctx, ownerOf(ctx), in.ID, in.HostID)
	if err != nil {
		return nil, err
	}
	return &outputOut{Body: o.View()}, nil
}

// jobEvents streams the job as server-sent events until it is final.
func (s *Server) jobEvents(w http.ResponseWriter, r *http.Request) {
	flusher, _ := w.(http.Flusher)
	started := false
	err := s.cfg.Operations.WatchJob(r.Context(), ownerOf(r.Context()), r.PathValue("id"), func(j jobs.Job) error {
		if !started {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
			started = true
		}
		b, err := json.Marshal(j.View())
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: job\ndata: %s\n\n", b); err != nil {
			return err
		}
		if flusher != nil {
			flusher.Flush()
		}
		return nil
	})
	if err != nil && !started {
		writeProblem(w, problemFor(s.log, r, err))
	}
}
