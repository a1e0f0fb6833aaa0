package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"hostgate/internal/paging"
	"hostgate/internal/schedules"
)

// Schedules is the schedules' storage, on the shared core.
type Schedules struct{ d *DB }

var _ schedules.Store = Schedules{}

// Schedules returns the schedules' storage.
func (d *DB) Schedules() schedules.Store { return Schedules{d} }

const scheduleCols = `id, user_id, name, job, at_time, cron, timezone, paused, next_run_at, last_run_at,
	last_job_id, created_at, updated_at`

func scanSchedule(r rowScanner) (schedules.Schedule, error) {
	var (
		s      schedules.Schedule
		job    string
		paused int64
	)
	err := r.Scan(&s.ID, &s.UserID, &s.Name, &job, nullTimeDest{&s.At}, &s.Cron, &s.Timezone, &paused,
		nullTimeDest{&s.NextRunAt}, nullTimeDest{&s.LastRunAt}, &s.LastJobID, timeDest{&s.CreatedAt}, timeDest{&s.UpdatedAt})
	s.Job, s.Paused = []byte(job), paused != 0
	return s, err
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// CreateSchedule implements schedules.Store. It locks the user's row
// (PostgreSQL) so that two creates cannot both pass the count.
func (s Schedules) CreateSchedule(ctx context.Context, sc schedules.Schedule, limit int) error {
	return s.d.unit(ctx, func(t *tx) error {
		var id string
		err := t.row(ctx, t.lock(`SELECT id FROM users WHERE id = $1`, `SELECT id FROM users WHERE id = $1 FOR UPDATE`), sc.UserID).Scan(&id)
		if err != nil {
			return t.d.errorf("lock user for schedule", err)
		}
		var n int
		if err := t.row(ctx, `SELECT count(*) FROM schedules WHERE user_id = $1`, sc.UserID).Scan(&n); err != nil {
			return t.d.errorf("count schedules", err)
		}
		if n >= limit {
			return schedules.ErrLimit
		}
		_, err = t.exec(ctx, `INSERT INTO schedules (`+scheduleCols+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			sc.ID, sc.UserID, sc.Name, string(sc.Job), t.d.nullTimeArg(sc.At), sc.Cron, sc.Timezone, boolInt(sc.Paused),
			t.d.nullTimeArg(sc.NextRunAt), t.d.nullTimeArg(sc.LastRunAt), sc.LastJobID, t.d.timeArg(sc.CreatedAt), t.d.timeArg(sc.UpdatedAt))
		if err != nil {
			return t.d.errorf("insert schedule", err)
		}
		return nil
	})
}

// GetSchedule implements schedules.Store.
func (s Schedules) GetSchedule(ctx context.Context, owner, id string) (schedules.Schedule, error) {
	sc, err := scanSchedule(s.d.read.QueryRowContext(ctx, `SELECT `+scheduleCols+` FROM schedules
		WHERE id = $1 AND user_id = $2`, id, owner))
	return sc, s.d.hostResult("get schedule", err, schedules.ErrNotFound)
}

// ListSchedules implements schedules.Store, by schedules_owner_newest.
func (s Schedules) ListSchedules(ctx context.Context, owner string, p paging.Page) ([]schedules.Schedule, int, error) {
	var w where
	w.add("user_id = $%d", owner)
	return listPage(ctx, s.d, "schedules", scheduleCols, "schedules", w, newestFirst, p, scanSchedule)
}

// UpdateSchedule implements schedules.Store.
func (s Schedules) UpdateSchedule(ctx context.Context, sc schedules.Schedule) error {
	d := s.d
	res, err := d.write.ExecContext(ctx, `UPDATE schedules SET name = $1, job = $2, at_time = $3, cron = $4,
		timezone = $5, paused = $6, next_run_at = $7, updated_at = $8 WHERE id = $9 AND user_id = $10`,
		sc.Name, string(sc.Job), d.nullTimeArg(sc.At), sc.Cron, sc.Timezone, boolInt(sc.Paused),
		d.nullTimeArg(sc.NextRunAt), d.timeArg(sc.UpdatedAt), sc.ID, sc.UserID)
	if err != nil {
		return d.errorf("update schedule", err)
	}
	return affected(res, schedules.ErrNotFound)
}

// DeleteSchedule implements schedules.Store; the history goes with it
// (ON DELETE CASCADE).
func (s Schedules) DeleteSchedule(ctx context.Context, owner, id string) error {
	res, err := s.d.write.ExecContext(ctx, `DELETE FROM schedules WHERE id = $1 AND user_id = $2`, id, owner)
	if err != nil {
		return s.d.errorf("delete schedule", err)
	}
	return affected(res, schedules.ErrNotFound)
}

// DueSchedules implements schedules.Store, by schedules_due.
func (s Schedules) DueSchedules(ctx context.Context, now time.Time, limit int) ([]schedules.Schedule, error) {
	rows, err := s.d.read.QueryContext(ctx, `SELECT `+scheduleCols+` FROM schedules
		WHERE next_run_at IS NOT NULL AND next_run_at <= $1 ORDER BY next_run_at LIMIT $2`,
		s.d.timeArg(now), int64(max(limit, 1)))
	if err != nil {
		return nil, s.d.errorf("due schedules", err)
	}
	out, err := collect(rows, scanSchedule)
	if err != nil {
		return nil, s.d.errorf("due schedules", err)
	}
	return out, nil
}

// ClaimRun implements schedules.Store. The update's condition on the old
// next_run_at is the claim: on PostgreSQL a concurrent claimer waits for
// the row lock and then finds the condition false; on SQLite the single
// writer runs one claim at a time. A schedule without a next run pauses.
func (s Schedules) ClaimRun(ctx context.Context, c schedules.Claim) error {
	return s.d.unit(ctx, func(t *tx) error {
		res, err := t.exec(ctx, `UPDATE schedules SET next_run_at = $1, paused = $2, last_run_at = $3
			WHERE id = $4 AND next_run_at = $5`,
			t.d.nullTimeArg(c.Next), boolInt(c.Next == nil), t.d.timeArg(c.Run.FiredAt), c.ScheduleID, t.d.timeArg(c.Was))
		if err != nil {
			return t.d.errorf("claim schedule run", err)
		}
		if err := affected(res, schedules.ErrClaimLost); err != nil {
			return err
		}
		_, err = t.exec(ctx, `INSERT INTO schedule_runs (id, schedule_id, at, fired_at) VALUES ($1, $2, $3, $4)`,
			c.Run.ID, c.ScheduleID, t.d.timeArg(c.Run.At), t.d.timeArg(c.Run.FiredAt))
		if err != nil {
			return t.d.errorf("insert schedule run", err)
		}
		return nil
	})
}

// FinishRun implements schedules.Store.
func (s Schedules) FinishRun(ctx context.Context, scheduleID, runID, jobID, code, message string) error {
	return s.d.unit(ctx, func(t *tx) error {
		if _, err := t.exec(ctx, `UPDATE schedule_runs SET job_id = $1, error = $2, message = $3 WHERE id = $4`,
			jobID, code, message, runID); err != nil {
			return t.d.errorf("finish schedule run", err)
		}
		if jobID == "" {
			return nil
		}
		if _, err := t.exec(ctx, `UPDATE schedules SET last_job_id = $1 WHERE id = $2`, jobID, scheduleID); err != nil {
			return t.d.errorf("note schedule job", err)
		}
		return nil
	})
}

const scheduleRunCols = "id, schedule_id, at, fired_at, job_id, error, message"

func scanScheduleRun(r rowScanner) (schedules.Run, error) {
	var run schedules.Run
	err := r.Scan(&run.ID, &run.ScheduleID, timeDest{&run.At}, timeDest{&run.FiredAt}, &run.JobID, &run.Error, &run.Message)
	return run, err
}

// ListRuns implements schedules.Store, by schedule_runs_newest.
func (s Schedules) ListRuns(ctx context.Context, owner, id string, p paging.Page) ([]schedules.Run, int, error) {
	var one int
	err := s.d.read.QueryRowContext(ctx, `SELECT 1 FROM schedules WHERE id = $1 AND user_id = $2`, id, owner).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, schedules.ErrNotFound
	} else if err != nil {
		return nil, 0, s.d.errorf("read schedule", err)
	}
	var w where
	w.add("schedule_id = $%d", id)
	return listPage(ctx, s.d, "schedule runs", scheduleRunCols, "schedule_runs", w, keyOrder{Col: "at", ColKind: kindTime, Tie: "id", Desc: true}, p, scanScheduleRun)
}
