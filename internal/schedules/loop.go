package schedules

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
)

// Run fires due schedules every interval (DefaultInterval when <= 0)
// until ctx ends. Every hub instance runs it; Fire keeps each run to one
// instance. Errors go to onErr and the loop goes on.
func (s *Service) Run(ctx context.Context, interval time.Duration, onErr func(error)) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := s.Fire(ctx); err != nil && ctx.Err() == nil {
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Fire claims and starts the runs due now, and returns how many this
// instance started. A due schedule's next_run_at moves to its first run
// after now, so runs missed while no hub was up fire once, not once per
// missed period; a one-off schedule pauses itself. Only the instance
// whose claim succeeds starts the job. Without a Starter it claims
// nothing.
func (s *Service) Fire(ctx context.Context) (int, error) {
	_, starter := s.jobs()
	if starter == nil {
		return 0, nil
	}
	now := s.Now().UTC().Truncate(time.Microsecond)
	due, err := s.store.DueSchedules(ctx, now, DueBatch)
	if err != nil {
		return 0, err
	}
	started := 0
	var errs []error
	for _, sc := range due {
		ok, err := s.fireOne(ctx, starter, sc, now)
		if ok {
			started++
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return started, errors.Join(errs...)
}

// fireOne claims sc's due run and, when the claim is this instance's,
// starts the job and records the outcome.
func (s *Service) fireOne(ctx context.Context, starter Starter, sc Schedule, now time.Time) (bool, error) {
	c := Claim{ScheduleID: sc.ID, Was: *sc.NextRunAt,
		Run: Run{ID: uuid.NewString(), ScheduleID: sc.ID, At: *sc.NextRunAt, FiredAt: now}}
	if tm, err := timingOf(sc); err == nil {
		c.Next = tm.NextAfterRun(*sc.NextRunAt, now)
	}
	err := s.store.ClaimRun(ctx, c)
	if errors.Is(err, ErrClaimLost) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	jobID, err := starter.StartScheduled(ctx, sc.UserID, sc.ID, sc.Job)
	code, msg := "", ""
	if err != nil {
		code, msg = apperr.Code(err), "the job could not be started"
		if e, ok := errors.AsType[*apperr.Error](err); ok {
			msg = e.Message
		}
		jobID = ""
	}
	// Record even when ctx has just ended: the job has started.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return true, s.store.FinishRun(fctx, sc.ID, c.Run.ID, jobID, code, msg)
}
