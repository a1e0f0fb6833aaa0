// Package schedules keeps each user's saved job requests with their timing
// (a one-off `at` or a five-field cron in an IANA time zone) and fires
// them: every hub instance runs the firing loop, and a due schedule is
// claimed by a conditional update of its next_run_at, in one unit of work
// with the run's history row, so across instances exactly one starts each
// run. Starting the job itself is the jobs' business, reached through
// Starter; validating the saved request at save time goes through
// Validator. docs/schedules.md describes the API.
package schedules

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"hostgate/internal/paging"
)

// Limits.
const (
	// MaxPerUser is how many schedules one user may keep.
	MaxPerUser = 100
	// MaxNameLen bounds a schedule's name, in characters.
	MaxNameLen = 100
	// MaxJobBytes bounds the saved job request.
	MaxJobBytes = 64 << 10
	// DueBatch is how many due schedules one scan claims at most.
	DueBatch = 100
	// DefaultInterval is how often the firing loop scans for due
	// schedules: cron resolution is a minute.
	DefaultInterval = 5 * time.Second
)

// Error codes of this package.
const (
	// CodeLimitReached: the user already keeps MaxPerUser schedules (409).
	CodeLimitReached = "limit_reached"
)

// Errors of the Store.
var (
	ErrNotFound  = errors.New("schedules: schedule not found")
	ErrLimit     = errors.New("schedules: too many schedules")
	ErrClaimLost = errors.New("schedules: run already claimed")
)

// Schedule is one saved job request with its timing.
type Schedule struct {
	ID     string
	UserID string
	Name   string
	// Job is the job request as saved (without dry_run), validated at save
	// time; its target is resolved at each run.
	Job json.RawMessage
	// At is the one-off time; Cron the five-field expression. Exactly one
	// is set.
	At       *time.Time
	Cron     string
	Timezone string
	Paused   bool
	// NextRunAt is when the schedule fires next: nil when paused.
	NextRunAt *time.Time
	LastRunAt *time.Time
	LastJobID string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Run is one firing, as the history shows it.
type Run struct {
	ID         string
	ScheduleID string
	// At is the planned time the run was claimed for (the next_run_at it
	// replaced); FiredAt when an instance claimed it.
	At      time.Time
	FiredAt time.Time
	// JobID is the started job; "" when starting failed (Error says why)
	// or the instance died between claim and start.
	JobID   string
	Error   string
	Message string
}

// Claim is the conditional update that takes one run of a schedule: its
// next_run_at moves from Was to Next (nil: none, the schedule pauses) and
// Run is recorded, in one unit of work.
type Claim struct {
	ScheduleID string
	Was        time.Time
	Next       *time.Time
	Run        Run
}

// Store is what the schedules need from storage.
type Store interface {
	// CreateSchedule inserts s unless its user keeps max schedules
	// already: ErrLimit.
	CreateSchedule(ctx context.Context, s Schedule, max int) error
	// GetSchedule reads owner's schedule id: ErrNotFound for another
	// user's or a missing one.
	GetSchedule(ctx context.Context, owner, id string) (Schedule, error)
	// ListSchedules pages owner's schedules, newest first, with the total.
	ListSchedules(ctx context.Context, owner string, p paging.Page) ([]Schedule, int, error)
	// UpdateSchedule writes s's name, job, timing, paused, next_run_at and
	// updated_at over the row of s.ID and s.UserID: ErrNotFound.
	UpdateSchedule(ctx context.Context, s Schedule) error
	// DeleteSchedule deletes owner's schedule id and its history.
	DeleteSchedule(ctx context.Context, owner, id string) error
	// DueSchedules lists up to limit schedules whose next_run_at is at or
	// before now, earliest first.
	DueSchedules(ctx context.Context, now time.Time, limit int) ([]Schedule, error)
	// ClaimRun applies c: ErrClaimLost when the schedule's next_run_at is
	// no longer c.Was (another instance took the run, or the owner changed
	// the schedule).
	ClaimRun(ctx context.Context, c Claim) error
	// FinishRun records the outcome of a claimed run: the job started (and
	// the schedule's last_job_id) or why none did.
	FinishRun(ctx context.Context, scheduleID, runID, jobID, code, message string) error
	// ListRuns pages the history of owner's schedule id, newest first:
	// ErrNotFound for another user's schedule.
	ListRuns(ctx context.Context, owner, id string, p paging.Page) ([]Run, int, error)
}

// Starter starts the job of a schedule's run (the jobs service).
type Starter interface {
	StartScheduled(ctx context.Context, owner, scheduleID string, job json.RawMessage) (jobID string, err error)
}

// Validator checks a job request as POST /v1/api/jobs would, without
// resolving its target (the jobs service).
type Validator interface {
	ValidateJob(ctx context.Context, owner string, job json.RawMessage) error
}
