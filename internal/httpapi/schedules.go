package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/paging"
	"hostgate/internal/schedules"
)

// Schedules is the users' schedules (schedules.Service).
type Schedules interface {
	CreateSchedule(ctx context.Context, owner string, in schedules.Input) (schedules.Schedule, error)
	GetSchedule(ctx context.Context, owner, id string) (schedules.Schedule, error)
	ListSchedules(ctx context.Context, owner string, p paging.Page) (paging.Result[schedules.Schedule], error)
	UpdateSchedule(ctx context.Context, owner, id string, p schedules.Patch) (schedules.Schedule, error)
	DeleteSchedule(ctx context.Context, owner, id string) error
	PauseSchedule(ctx context.Context, owner, id string) (schedules.Schedule, error)
	ResumeSchedule(ctx context.Context, owner, id string) (schedules.Schedule, error)
	ScheduleRuns(ctx context.Context, owner, id string, p paging.Page) (paging.Result[schedules.Run], error)
}

// SavedJobRequest is a saved job request: any JSON object, kept as sent and
// validated by the jobs service as POST /v1/api/jobs would (without
// dry_run).
type SavedJobRequest json.RawMessage

// MarshalJSON implements json.Marshaler.
func (j SavedJobRequest) MarshalJSON() ([]byte, error) {
	if len(j) == 0 {
		return []byte("{}"), nil
	}
	return j, nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (j *SavedJobRequest) UnmarshalJSON(b []byte) error {
	*j = append((*j)[:0], b...)
	return nil
}

// Schema implements huma.SchemaProvider: an open object.
func (SavedJobRequest) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: "object", AdditionalProperties: true,
		Description: "The job request of POST /v1/api/jobs without dry_run (docs/schedules.md); its target is resolved at each run"}
}

// Schedule is a schedule as the API shows it.
type Schedule struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Job       SavedJobRequest `json:"job"`
	At        *time.Time      `json:"at" nullable:"true" doc:"The one-off time; null for a cron schedule"`
	Cron      *string         `json:"cron" nullable:"true" doc:"Five cron fields; null for a one-off schedule"`
	Timezone  string          `json:"timezone" doc:"IANA time zone of the cron fields"`
	Paused    bool            `json:"paused"`
	NextRunAt *time.Time      `json:"next_run_at" nullable:"true" doc:"When it fires next; null when paused"`
	LastRunAt *time.Time      `json:"last_run_at" nullable:"true"`
	LastJobID *string         `json:"last_job_id" nullable:"true" doc:"The job its latest successful run started"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
}

func scheduleOf(sc schedules.Schedule) Schedule {
	out := Schedule{ID: sc.ID, Name: sc.Name, Job: SavedJobRequest(sc.Job), At: sc.At, Timezone: sc.Timezone, Paused: sc.Paused,
		NextRunAt: sc.NextRunAt, LastRunAt: sc.LastRunAt, CreatedAt: sc.CreatedAt, UpdatedAt: sc.UpdatedAt}
	if sc.Cron != "" {
		out.Cron = &sc.Cron
	}
	if sc.LastJobID != "" {
		out.LastJobID = &sc.LastJobID
	}
	return out
}

// ScheduleRun is one line of a schedule's history.
type ScheduleRun struct {
	At      time.Time `json:"at" doc:"The planned time of the run"`
	FiredAt time.Time `json:"fired_at" doc:"When a hub started it (later than at for a run caught up after downtime)"`
	JobID   *string   `json:"job_id" nullable:"true"`
	Error   string    `json:"error" doc:"Why no job started: the jobs' error code, or empty"`
	Message string    `json:"message"`
}

type scheduleIn struct {
	Body struct {
		Name     string          `json:"name" maxLength:"400" doc:"1 to 100 characters"`
		Job      SavedJobRequest `json:"job"`
		At       *time.Time      `json:"at,omitempty" required:"false" nullable:"true" doc:"RFC 3339; exactly one of at and cron"`
		Cron     *string         `json:"cron,omitempty" required:"false" nullable:"true" maxLength:"200" doc:"Five fields: minute hour day-of-month month day-of-week"`
		Timezone string          `json:"timezone,omitempty" required:"false" maxLength:"64" doc:"IANA name, default UTC"`
		Paused   bool            `json:"paused,omitempty" required:"false"`
	}
}

type schedulePatchIn struct {
	ScheduleIDParam
	Body struct {
		Name     *string         `json:"name,omitempty" required:"false" maxLength:"400"`
		Job      SavedJobRequest `json:"job,omitempty" required:"false"`
		At       *time.Time      `json:"at,omitempty" required:"false" doc:"Replaces the timing with this one-off time"`
		Cron     *string         `json:"cron,omitempty" required:"false" maxLength:"200" doc:"Replaces the timing with this cron expression"`
		Timezone *string         `json:"timezone,omitempty" required:"false" maxLength:"64"`
	}
}

// ScheduleIDParam is the {id} of a schedule route.
type ScheduleIDParam struct {
	ID string `path:"id" maxLength:"64" doc:"Schedule id"`
}

type schedulesPageIn struct{ PageParams }

type scheduleRunsIn struct {
	ScheduleIDParam
	PageParams
}

type scheduleOut struct {
	Status int
	Body   Schedule
}

func (s *Server) scheduleRoutes() {
	for _, g := range []struct{ prefix, id string }{{"/v1/api", "api"}, {"/v1/user", "user"}} {
		sec := apiKeySecurity
		if g.id == "user" {
			sec = userSecurity
		}
		o := func(method, path, id, summary string) huma.Operation {
			return huma.Operation{OperationID: g.id + id, Method: method, Path: g.prefix + path, Summary: summary,
				Tags: []string{"schedules"}, Security: sec}
		}
		create := withErrors(o(http.MethodPost, "/schedules", "CreateSchedule", "Save a job request to run at a time or on a cron schedule"),
			jobErrors, limitError)
		create.DefaultStatus = http.StatusCreated
		op(s, create, s.createSchedule)
		op(s, o(http.MethodGet, "/schedules", "ListSchedules", "My schedules, newest first"), s.listSchedules)
		op(s, o(http.MethodGet, "/schedules/{id}", "GetSchedule", "One schedule"), s.getSchedule)
		op(s, withErrors(o(http.MethodPatch, "/schedules/{id}", "UpdateSchedule", "Change a schedule; its next run is recomputed from now"),
			jobErrors), s.updateSchedule)
		del := o(http.MethodDelete, "/schedules/{id}", "DeleteSchedule", "Delete a schedule and its history")
		del.DefaultStatus = http.StatusNoContent
		op(s, del, s.deleteSchedule)
		op(s, o(http.MethodPost, "/schedules/{id}/pause", "PauseSchedule", "Stop a schedule from firing"), s.pauseSchedule)
		op(s, withErrors(o(http.MethodPost, "/schedules/{id}/resume", "ResumeSchedule", "Let a schedule fire again, from now on"),
			jobErrors), s.resumeSchedule)
		op(s, o(http.MethodGet, "/schedules/{id}/runs", "ScheduleRuns", "A schedule's runs, newest first"), s.scheduleRuns)
	}
}

// The errors a schedule's save can give beyond its kind's: the jobs'
// validation of the saved request, and the per-user limit.
var (
	jobErrors = map[int]string{
		404: "not_found: the schedule, or a host or saved filter the job names, is not the caller's",
		503: "unavailable: jobs are not available on this hub",
	}
	limitError = map[int]string{409: "limit_reached: at most 100 schedules per user"}
)

// withErrors describes these error answers of o, each an {error,
// message} body; documentAnswers still adds the errors of o's kind, as
// for any operation (the "default" answer huma would have made says so).
func withErrors(o huma.Operation, errs ...map[int]string) huma.Operation {
	problem := func() map[string]*huma.MediaType {
		return map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Ref: "#/components/schemas/Problem"}}}
	}
	if o.Responses == nil {
		o.Responses = map[string]*huma.Response{"default": {Description: "Error", Content: problem()}}
	}
	for _, m := range errs {
		for st, desc := range m {
			o.Responses[strconv.Itoa(st)] = &huma.Response{Description: desc, Content: problem()}
		}
	}
	return o
}

func (s *Server) createSchedule(ctx context.Context, in *scheduleIn) (*scheduleOut, error) {
	b := in.Body
	sc, err := s.cfg.Deliveries.CreateSchedule(ctx, ownerOf(ctx), schedules.Input{Name: b.Name, Job: json.RawMessage(b.Job),
		At: b.At, Cron: b.Cron, Timezone: b.Timezone, Paused: b.Paused})
	if err != nil {
		return nil, err
	}
	return &scheduleOut{Status: http.StatusCreated, Body: scheduleOf(sc)}, nil
}

func (s *Server) listSchedules(ctx context.Context, in *schedulesPageIn) (*pagedOut[Schedule], error) {
	page, err := s.cfg.Deliveries.ListSchedules(ctx, ownerOf(ctx), in.page())
	if err != nil {
		return nil, err
	}
	return &pagedOut[Schedule]{Body: paging.Map(page, scheduleOf)}, nil
}

func (s *Server) getSchedule(ctx context.Context, in *ScheduleIDParam) (*scheduleOut, error) {
	return answerSchedule(s.cfg.Deliveries.GetSchedule(ctx, ownerOf(ctx), in.ID))
}

func (s *Server) updateSchedule(ctx context.Context, in *schedulePatchIn) (*scheduleOut, error) {
	b := in.Body
	p := schedules.Patch{Name: b.Name, At: b.At, Cron: b.Cron, Timezone: b.Timezone}
	if b.Job != nil {
		p.Job = json.RawMessage(b.Job)
	}
	return answerSchedule(s.cfg.Deliveries.UpdateSchedule(ctx, ownerOf(ctx), in.ID, p))
}

func (s *Server) deleteSchedule(ctx context.Context, in *ScheduleIDParam) (*noContent, error) {
	if err := s.cfg.Deliveries.DeleteSchedule(ctx, ownerOf(ctx), in.ID); err != nil {
		return nil, err
	}
	return &noContent{Status: http.StatusNoContent}, nil
}

func (s *Server) pauseSchedule(ctx context.Context, in *ScheduleIDParam) (*scheduleOut, error) {
	return answerSchedule(s.cfg.Deliveries.PauseSchedule(ctx, ownerOf(ctx), in.ID))
}

func (s *Server) resumeSchedule(ctx context.Context, in *ScheduleIDParam) (*scheduleOut, error) {
	return answerSchedule(s.cfg.Deliveries.ResumeSchedule(ctx, ownerOf(ctx), in.ID))
}

func (s *Server) scheduleRuns(ctx context.Context, in *scheduleRunsIn) (*pagedOut[ScheduleRun], error) {
	page, err := s.cfg.Deliveries.ScheduleRuns(ctx, ownerOf(ctx), in.ID, in.page())
	if err != nil {
		return nil, err
	}
	return &pagedOut[ScheduleRun]{Body: paging.Map(page, func(r schedules.Run) ScheduleRun {
		out := ScheduleRun{At: r.At, FiredAt: r.FiredAt, Error: r.Error, Message: r.Message}
		if r.JobID != "" {
			out.JobID = &r.JobID
		}
		return out
	})}, nil
}

func answerSchedule(sc schedules.Schedule, err error) (*scheduleOut, error) {
	if err != nil {
		return nil, err
	}
	return &scheduleOut{Status: http.StatusOK, Body: scheduleOf(sc)}, nil
}
