package schedules

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
	"hostgate/internal/paging"
)

// Service is the users' schedules and the firing loop. Set the jobs side
// with SetJobs; until then saving a schedule answers 503 unavailable and
// the loop claims nothing.
type Service struct {
	store Store
	// Now is the clock; tests set it before use.
	Now func() time.Time

	mu        sync.RWMutex
	validator Validator
	starter   Starter
}

// NewService returns the schedules over store.
func NewService(store Store) *Service {
	return &Service{store: store, Now: time.Now}
}

// SetJobs connects the jobs: v validates saved requests, st starts runs.
// Either may be nil (that side is then unavailable).
func (s *Service) SetJobs(v Validator, st Starter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.validator, s.starter = v, st
}

func (s *Service) jobs() (Validator, Starter) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.validator, s.starter
}

// errJobsUnavailable answers while no jobs service is connected.
var errJobsUnavailable = apperr.New(apperr.CodeUnavailable, "jobs not available")

// Input is a new schedule as the user sends it.
type Input struct {
	Name     string
	Job      json.RawMessage
	At       *time.Time
	Cron     *string
	Timezone string
	Paused   bool
}

// Patch changes a schedule: each non-nil field replaces the saved one.
// Setting At or Cron replaces the timing (the other is cleared).
type Patch struct {
	Name     *string
	Job      json.RawMessage
	At       *time.Time
	Cron     *string
	Timezone *string
}

func invalid(msg string) error { return apperr.New(apperr.CodeInvalidBody, msg) }

// CreateSchedule saves owner's new schedule; next_run_at is its first
// run after now (none when paused).
func (s *Service) CreateSchedule(ctx context.Context, owner string, in Input) (Schedule, error) {
	now := s.Now().UTC().Truncate(time.Microsecond)
	sc := Schedule{ID: uuid.NewString(), UserID: owner, Name: in.Name, Job: in.Job, At: in.At, Timezone: in.Timezone,
		Paused: in.Paused, CreatedAt: now, UpdatedAt: now}
	if in.Cron != nil {
		sc.Cron = *in.Cron
	}
	if err := s.check(ctx, &sc, now); err != nil {
		return Schedule{}, err
	}
	err := s.store.CreateSchedule(ctx, sc, MaxPerUser)
	if errors.Is(err, ErrLimit) {
		return Schedule{}, apperr.New(CodeLimitReached, "at most 100 schedules per user")
	}
	return sc, err
}

// check validates sc (name, job, timing) and sets its timezone default
// and next_run_at from now.
func (s *Service) check(ctx context.Context, sc *Schedule, now time.Time) error {
	if err := checkName(sc.Name); err != nil {
		return err
	}
	tm, err := timingOf(*sc)
	if err != nil {
		return invalid(err.Error())
	}
	if sc.Timezone == "" {
		sc.Timezone = "UTC"
	}
	if sc.At != nil {
		t := sc.At.UTC().Truncate(time.Microsecond)
		sc.At = &t
	}
	sc.NextRunAt = nil
	if !sc.Paused {
		if sc.NextRunAt = tm.Next(now); sc.NextRunAt == nil {
			if tm.OneOff() {
				return invalid("at is in the past")
			}
			return invalid("cron never matches a date")
		}
	}
	return s.checkJob(ctx, sc.UserID, sc.Job)
}

func timingOf(sc Schedule) (Timing, error) {
	var expr *string
	if sc.Cron != "" {
		expr = &sc.Cron
	}
	return ParseTiming(sc.At, expr, sc.Timezone)
}

func checkName(name string) error {
	n := utf8.RuneCountInString(name)
	if n < 1 || n > MaxNameLen || strings.TrimSpace(name) == "" {
		return invalid("name must be 1 to 100 characters")
	}
	if strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return invalid("name must not contain control characters")
	}
	return nil
}

// checkJob refuses a job request that is not a JSON object, is too large
// or asks for a dry run, then asks the jobs service.
func (s *Service) checkJob(ctx context.Context, owner string, job json.RawMessage) error {
	if len(job) > MaxJobBytes {
		return invalid("job is larger than 64 KiB")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(job, &fields); err != nil || fields == nil {
		return invalid("job must be a job request object")
	}
	if dry, ok := fields["dry_run"]; ok && !bytes.Equal(bytes.TrimSpace(dry), []byte("false")) {
		return invalid("a scheduled job cannot be a dry run")
	}
	v, _ := s.jobs()
	if v == nil {
		return errJobsUnavailable
	}
	return v.ValidateJob(ctx, owner, job)
}

// GetSchedule returns owner's schedule id; another user's is not_found.
func (s *Service) GetSchedule(ctx context.Context, owner, id string) (Schedule, error) {
	sc, err := s.store.GetSchedule(ctx, owner, id)
	return sc, notFound(err)
}

func notFound(err error) error {
	if errors.Is(err, ErrNotFound) {
		return apperr.NotFound("schedule")
	}
	return err
}

// ListSchedules pages owner's schedules, newest first.
func (s *Service) ListSchedules(ctx context.Context, owner string, p paging.Page) (paging.Result[Schedule], error) {
	items, total, err := s.store.ListSchedules(ctx, owner, p)
	if err != nil {
		return paging.Result[Schedule]{}, err
	}
	return paging.NewResult(items, total, p), nil
}

// UpdateSchedule applies p to owner's schedule id; next_run_at is
// recomputed from now unless the schedule is paused.
func (s *Service) UpdateSchedule(ctx context.Context, owner, id string, p Patch) (Schedule, error) {
	sc, err := s.GetSchedule(ctx, owner, id)
	if err != nil {
		return Schedule{}, err
	}
	if p.Name != nil {
		sc.Name = *p.Name
	}
	if p.Job != nil {
		sc.Job = p.Job
	}
	if p.Timezone != nil {
		sc.Timezone = *p.Timezone
	}
	if p.At != nil || p.Cron != nil {
		sc.At, sc.Cron = p.At, ""
		if p.Cron != nil {
			sc.Cron = *p.Cron
		}
	}
	return s.save(ctx, sc)
}

// save validates and writes sc, stamped now.
func (s *Service) save(ctx context.Context, sc Schedule) (Schedule, error) {
	now := s.Now().UTC().Truncate(time.Microsecond)
	if err := s.check(ctx, &sc, now); err != nil {
		return Schedule{}, err
	}
	sc.UpdatedAt = now
	if err := s.store.UpdateSchedule(ctx, sc); err != nil {
		return Schedule{}, notFound(err)
	}
	return sc, nil
}

// DeleteSchedule deletes owner's schedule id and its history.
func (s *Service) DeleteSchedule(ctx context.Context, owner, id string) error {
	return notFound(s.store.DeleteSchedule(ctx, owner, id))
}

// PauseSchedule stops owner's schedule id from firing (idempotent).
func (s *Service) PauseSchedule(ctx context.Context, owner, id string) (Schedule, error) {
	sc, err := s.GetSchedule(ctx, owner, id)
	if err != nil || sc.Paused {
		return sc, err
	}
	sc.Paused, sc.NextRunAt = true, nil
	sc.UpdatedAt = s.Now().UTC().Truncate(time.Microsecond)
	if err := s.store.UpdateSchedule(ctx, sc); err != nil {
		return Schedule{}, notFound(err)
	}
	return sc, nil
}

// ResumeSchedule lets owner's schedule id fire again from now: its next
// run is the first after now (a one-off whose time has passed cannot be
// resumed: 400 invalid_body, PATCH a new at). The saved job is checked
// again, as at save time.
func (s *Service) ResumeSchedule(ctx context.Context, owner, id string) (Schedule, error) {
	sc, err := s.GetSchedule(ctx, owner, id)
	if err != nil {
		return Schedule{}, err
	}
	sc.Paused = false
	return s.save(ctx, sc)
}

// ScheduleRuns pages the history of owner's schedule id, newest first.
func (s *Service) ScheduleRuns(ctx context.Context, owner, id string, p paging.Page) (paging.Result[Run], error) {
	items, total, err := s.store.ListRuns(ctx, owner, id, p)
	if err != nil {
		return paging.Result[Run]{}, notFound(err)
	}
	return paging.NewResult(items, total, p), nil
}
