package sqldb

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"hostgate/internal/billing"
	"hostgate/internal/deliveries"
	"hostgate/internal/jobs"
	"hostgate/internal/paging"
)

// Jobs is the jobs' storage, on the shared core.
type Jobs struct{ d *DB }

var (
	_ jobs.Store = Jobs{}
	_ jobs.Tx    = jobsTx{}
)

// Jobs returns the jobs' storage.
func (d *DB) Jobs() jobs.Store { return Jobs{d} }

// Tx implements jobs.Store.
func (s Jobs) Tx(ctx context.Context, fn func(jobs.Tx) error) error {
	return s.d.unit(ctx, func(t *tx) error { return fn(jobsTx{t}) })
}

type jobsTx struct{ *tx }

const jobCols = `id, user_id, spec, state, host_count, queued, running, succeeded, failed, skipped, expired, canceled,
	wave, wave_done_at, stop_reason, retry_of, schedule_id, charged, expires_at, created_at, finished_at`

// jobViewCols are jobCols and the target, which only the API reads.
const jobViewCols = jobCols + `, target`

func scanJob(r rowScanner) (jobs.Job, error) { return scanJobRow(r, false) }

func scanJobView(r rowScanner) (jobs.Job, error) { return scanJobRow(r, true) }

func scanJobRow(r rowScanner, withTarget bool) (jobs.Job, error) {
	var j jobs.Job
	var spec, target string
	t := &j.Totals
	dest := []any{&j.ID, &j.Owner, &spec, &j.State, &j.HostCount, &t.Queued, &t.Running, &t.Succeeded, &t.Failed,
		&t.Skipped, &t.Expired, &t.Canceled, &j.Wave, nullTimeDest{&j.WaveDoneAt}, &j.StopReason, &j.RetryOf,
		&j.ScheduleID, &j.Charged, timeDest{&j.ExpiresAt}, timeDest{&j.CreatedAt}, nullTimeDest{&j.FinishedAt}}
	if withTarget {
		dest = append(dest, &target)
	}
	if err := r.Scan(dest...); err != nil {
		return j, err
	}
	if err := json.Unmarshal([]byte(spec), &j.Spec); err != nil {
		return j, err
	}
	if withTarget {
		return j, json.Unmarshal([]byte(target), &j.Spec.Target)
	}
	return j, nil
}

const runCols = `id, job_id, host_id, seq, wave, state, waiting, claimed_by, deadline_at, exit_code, stdout, stderr,
	truncated, error, message, charged, started_at, finished_at`

func scanRun(r rowScanner) (jobs.Run, error) {
	var x jobs.Run
	var waiting, truncated int64
	var exit sql.NullInt64
	err := r.Scan(&x.ID, &x.JobID, &x.HostID, &x.Seq, &x.Wave, &x.State, &waiting, &x.ClaimedBy, nullTimeDest{&x.DeadlineAt},
		&exit, &x.Stdout, &x.Stderr, &truncated, &x.Error, &x.Message, &x.Charged, nullTimeDest{&x.StartedAt}, nullTimeDest{&x.FinishedAt})
	x.Waiting, x.Truncated = waiting != 0, truncated != 0
	if exit.Valid {
		c := int(exit.Int64)
		x.ExitCode = &c
	}
	return x, err
}

func scanRunNamed(r rowScanner) (jobs.Run, error) {
	var x jobs.Run
	var waiting, truncated int64
	var exit sql.NullInt64
	var name sql.NullString
	err := r.Scan(&x.ID, &x.JobID, &x.HostID, &x.Seq, &x.Wave, &x.State, &waiting, &x.ClaimedBy, nullTimeDest{&x.DeadlineAt},
		&exit, &x.Stdout, &x.Stderr, &truncated, &x.Error, &x.Message, &x.Charged, nullTimeDest{&x.StartedAt}, nullTimeDest{&x.FinishedAt}, &name)
	x.Waiting, x.Truncated, x.HostName = waiting != 0, truncated != 0, name.String
	if exit.Valid {
		c := int(exit.Int64)
		x.ExitCode = &c
	}
	return x, err
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func nullInt(p *int) any {
	if p == nil {
		return nil
	}
	return int64(*p)
}

// marks is "$from, $from+1, …" for n arguments.
func marks(from, n int) string {
	m := make([]string, n)
	for i := range m {
		m[i] = fmt.Sprintf("$%d", from+i)
	}
	return strings.Join(m, ", ")
}

func strArgs(ids []string) []any {
	a := make([]any, len(ids))
	for i, id := range ids {
		a[i] = id
	}
	return a
}

// InsertJob implements jobs.Tx.
func (t jobsTx) InsertJob(ctx context.Context, j jobs.Job) error {
	spec, err := json.Marshal(j.Spec)
	if err != nil {
		return err
	}
	target, err := json.Marshal(j.Spec.Target)
	if err != nil {
		return err
	}
	d := t.d
	_, err = t.tx.tx.ExecContext(ctx, `INSERT INTO jobs (id, user_id, spec, target, state, host_count, queued, wave, retry_of, schedule_id,
		expires_at, created_at) VALUES ($1, $2, $3, $12, $4, $5, $6, $7, $8, $9, $10, $11)`,
		j.ID, j.Owner, string(spec), string(j.State), int64(j.HostCount), int64(j.Totals.Queued), int64(j.Wave), j.RetryOf, j.ScheduleID,
		d.timeArg(j.ExpiresAt), d.timeArg(j.CreatedAt), string(target))
	if err != nil {
		return d.errorf("insert job", err)
	}
	return nil
}

var runColumns = []column{{"id", "text"}, {"job_id", "text"}, {"host_id", "text"}, {"seq", "bigint"}, {"wave", "bigint"}}

// InsertRuns implements jobs.Tx.
func (t jobsTx) InsertRuns(ctx context.Context, runs []jobs.Run) error {
	rows := make([][]any, len(runs))
	for i, r := range runs {
		rows[i] = []any{r.ID, r.JobID, r.HostID, int64(r.Seq), int64(r.Wave)}
	}
	return t.d.execBatch(ctx, t.tx.tx, "insert job runs", runColumns, rows,
		`INSERT INTO job_runs (id, job_id, host_id, seq, wave, state) SELECT id, job_id, host_id, seq, wave, 'queued' FROM v`)
}

const (
	lockJobPlain = `SELECT ` + jobCols + ` FROM jobs WHERE id = $1`
	lockJobRow   = lockJobPlain + ` FOR UPDATE`
)

// LockJob implements jobs.Tx.
func (t jobsTx) LockJob(ctx context.Context, id string) (jobs.Job, error) {
	j, err := scanJob(t.tx.tx.QueryRowContext(ctx, t.lock(lockJobPlain, lockJobRow), id))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return jobs.Job{}, jobs.ErrNotFound
	case err != nil:
		return jobs.Job{}, t.d.errorf("lock job", err)
	}
	return j, nil
}

// SaveJob implements jobs.Tx.
func (t jobsTx) SaveJob(ctx context.Context, j jobs.Job) error {
	d := t.d
	c := j.Totals
	_, err := t.tx.tx.ExecContext(ctx, `UPDATE jobs SET state = $1, queued = $2, running = $3, succeeded = $4, failed = $5,
		skipped = $6, expired = $7, canceled = $8, wave = $9, wave_done_at = $10, stop_reason = $11, charged = $12,
		finished_at = $13 WHERE id = $14`,
		string(j.State), int64(c.Queued), int64(c.Running), int64(c.Succeeded), int64(c.Failed), int64(c.Skipped),
		int64(c.Expired), int64(c.Canceled), int64(j.Wave), d.nullTimeArg(j.WaveDoneAt), j.StopReason, int64(j.Charged),
		d.nullTimeArg(j.FinishedAt), j.ID)
	if err != nil {
		return d.errorf("save job", err)
	}
	return nil
}

func changed(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// StartRun implements jobs.Tx.
func (t jobsTx) StartRun(ctx context.Context, r jobs.Run) (bool, error) {
	d := t.d
	ok, err := changed(t.tx.tx.ExecContext(ctx, `UPDATE job_runs SET state = 'running', waiting = 0, claimed_by = $1,
		deadline_at = $2, charged = $3, started_at = $4 WHERE id = $5 AND state = 'queued'`,
		r.ClaimedBy, d.nullTimeArg(r.DeadlineAt), int64(r.Charged), d.nullTimeArg(r.StartedAt), r.ID))
	if err != nil {
		return false, d.errorf("start run", err)
	}
	return ok, nil
}

// EndRun implements jobs.Tx.
func (t jobsTx) EndRun(ctx context.Context, r jobs.Run, from jobs.RunState) (bool, error) {
	d := t.d
	ok, err := changed(t.tx.tx.ExecContext(ctx, `UPDATE job_runs SET state = $1, waiting = 0, exit_code = $2, stdout = $3,
		stderr = $4, truncated = $5, error = $6, message = $7, finished_at = $8 WHERE id = $9 AND state = $10`,
		string(r.State), nullInt(r.ExitCode), r.Stdout, r.Stderr, b2i(r.Truncated), r.Error, r.Message,
		d.nullTimeArg(r.FinishedAt), r.ID, string(from)))
	if err != nil {
		return false, d.errorf("end run", err)
	}
	return ok, nil
}

// queryBatchIDs is execBatch for a body that returns one text column (an
// UPDATE … RETURNING id): the ids of every chunk.
func (d *DB) queryBatchIDs(ctx context.Context, tx *sql.Tx, what string, cols []column, rows [][]any, body string) ([]string, error) {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	head := "WITH v(" + strings.Join(names, ", ") + ") AS ("
	var ids []string
	query := func(q string, args []any) error {
		rs, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return d.errorf(what, err)
		}
		defer rs.Close()
		for rs.Next() {
			var id string
			if err := rs.Scan(&id); err != nil {
				return d.errorf(what, err)
			}
			ids = append(ids, id)
		}
		if err := rs.Err(); err != nil {
			return d.errorf(what, err)
		}
		return nil
	}
	if d.dialect.ArrayParams {
		arrays := make([]string, len(cols))
		args := make([]any, len(cols))
		for i, c := range cols {
			arrays[i] = fmt.Sprintf("$%d::%s[]", i+1, c.pgType)
			col := make([]any, len(rows))
			for j, r := range rows {
				col[j] = r[i]
			}
			args[i] = col
		}
		return ids, query(head+"SELECT * FROM unnest("+strings.Join(arrays, ", ")+")) "+body, args)
	}
	row := "(?" + strings.Repeat(", ?", len(cols)-1) + ")"
	args := make([]any, 0, min(len(rows), valuesRows)*len(cols))
	for len(rows) > 0 {
		n := min(len(rows), valuesRows)
		args = args[:0]
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		if err := query(head+"VALUES "+row+strings.Repeat(", "+row, n-1)+") "+body, args); err != nil {
			return nil, err
		}
		rows = rows[n:]
	}
	return ids, nil
}

var startColumns = []column{{"rid", "text"}, {"rclaimed", "text"}, {"rdeadline", "timestamptz"}, {"rcharged", "bigint"},
	{"rstarted", "timestamptz"}}

// StartRuns implements jobs.Tx: one conditional update (per chunk of
// SQLite's VALUES) whose RETURNING counts the runs it moved.
func (t jobsTx) StartRuns(ctx context.Context, runs []jobs.Run) (int, error) {
	if len(runs) == 0 {
		return 0, nil
	}
	d := t.d
	rows := make([][]any, len(runs))
	for i, r := range runs {
		rows[i] = []any{r.ID, r.ClaimedBy, d.nullTimeArg(r.DeadlineAt), int64(r.Charged), d.nullTimeArg(r.StartedAt)}
	}
	ids, err := d.queryBatchIDs(ctx, t.tx.tx, "start runs", startColumns, rows,
		`UPDATE job_runs SET state = 'running', waiting = 0, claimed_by = v.rclaimed, deadline_at = v.rdeadline,
		 charged = v.rcharged, started_at = v.rstarted FROM v WHERE job_runs.id = v.rid AND job_runs.state = 'queued'
		 RETURNING job_runs.id`)
	return len(ids), err
}

var endColumns = []column{{"rid", "text"}, {"rfrom", "text"}, {"rstate", "text"}, {"rexit", "bigint"}, {"rstdout", "text"},
	{"rstderr", "text"}, {"rtruncated", "bigint"}, {"rerror", "text"}, {"rmessage", "text"}, {"rfinished", "timestamptz"}}

// EndRuns implements jobs.Tx.
func (t jobsTx) EndRuns(ctx context.Context, runs []jobs.Run, from jobs.RunState) ([]string, error) {
	if len(runs) == 0 {
		return nil, nil
	}
	d := t.d
	rows := make([][]any, len(runs))
	for i, r := range runs {
		rows[i] = []any{r.ID, string(from), string(r.State), nullInt(r.ExitCode), r.Stdout, r.Stderr, b2i(r.Truncated), r.Error,
			r.Message, d.nullTimeArg(r.FinishedAt)}
	}
	return d.queryBatchIDs(ctx, t.tx.tx, "end runs", endColumns, rows,
		`UPDATE job_runs SET state = v.rstate, waiting = 0, exit_code = v.rexit, stdout = v.rstdout, stderr = v.rstderr,
		 truncated = v.rtruncated, error = v.rerror, message = v.rmessage, finished_at = v.rfinished
		 FROM v WHERE job_runs.id = v.rid AND job_runs.state = v.rfrom RETURNING job_runs.id`)
}

var outputColumns = []column{{"run_id", "text"}, {"job_id", "text"}, {"host_id", "text"}, {"exit_code", "bigint"},
	{"stdout", "text"}, {"stderr", "text"}, {"result", "text"}, {"expires_at", "timestamptz"}}

// InsertOutputs implements jobs.Tx.
func (t jobsTx) InsertOutputs(ctx context.Context, os []jobs.Output) error {
	d := t.d
	rows := make([][]any, len(os))
	for i, o := range os {
		rows[i] = []any{o.RunID, o.JobID, o.HostID, nullInt(o.ExitCode), o.Stdout, o.Stderr, string(o.Result), d.timeArg(o.ExpiresAt)}
	}
	return d.execBatch(ctx, t.tx.tx, "insert outputs", outputColumns, rows,
		`INSERT INTO job_outputs (run_id, job_id, host_id, exit_code, stdout, stderr, result, expires_at)
		 SELECT run_id, job_id, host_id, exit_code, stdout, stderr, result, expires_at FROM v`)
}

// EndQueued implements jobs.Tx.
func (t jobsTx) EndQueued(ctx context.Context, jobID string, to jobs.RunState, code, message string, at time.Time) (int, error) {
	d := t.d
	res, err := t.tx.tx.ExecContext(ctx, `UPDATE job_runs SET state = $1, waiting = 0, error = $2, message = $3, finished_at = $4
		WHERE job_id = $5 AND state = 'queued'`, string(to), code, message, d.timeArg(at), jobID)
	if err != nil {
		return 0, d.errorf("end queued runs", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// HostStates implements jobs.Tx.
func (t jobsTx) HostStates(ctx context.Context, hostIDs []string) (map[string]string, error) {
	out := make(map[string]string, len(hostIDs))
	for _, h := range hostIDs {
		out[h] = jobs.ErrHostDeleted
	}
	if len(hostIDs) == 0 {
		return out, nil
	}
	rows, err := t.tx.tx.QueryContext(ctx, `SELECT id, status FROM hosts WHERE deleted_at IS NULL AND id IN (`+
		marks(1, len(hostIDs))+`)`, strArgs(hostIDs)...)
	if err != nil {
		return nil, t.d.errorf("host states", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, status string
		if err := rows.Scan(&id, &status); err != nil {
			return nil, err
		}
		out[id] = ""
		if status == "banned" {
			out[id] = jobs.ErrHostBanned
		}
	}
	return out, rows.Err()
}

// Park implements jobs.Tx.
func (t jobsTx) Park(ctx context.Context, runIDs []string) error {
	return setWaiting(ctx, t.d, t.tx.tx, runIDs, true)
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func setWaiting(ctx context.Context, d *DB, ex execer, runIDs []string, waiting bool) error {
	for len(runIDs) > 0 {
		n := min(len(runIDs), 500)
		if _, err := ex.ExecContext(ctx, `UPDATE job_runs SET waiting = $1 WHERE state = 'queued' AND id IN (`+marks(2, n)+`)`,
			append([]any{b2i(waiting)}, strArgs(runIDs[:n])...)...); err != nil {
			return d.errorf("set waiting", err)
		}
		runIDs = runIDs[n:]
	}
	return nil
}

// InsertOutput implements jobs.Tx.
func (t jobsTx) InsertOutput(ctx context.Context, o jobs.Output) error {
	d := t.d
	result := string(o.Result)
	_, err := t.tx.tx.ExecContext(ctx, `INSERT INTO job_outputs (run_id, job_id, host_id, exit_code, stdout, stderr, result, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, o.RunID, o.JobID, o.HostID, nullInt(o.ExitCode), o.Stdout, o.Stderr, result,
		d.timeArg(o.ExpiresAt))
	if err != nil {
		return d.errorf("insert output", err)
	}
	return nil
}

// Billing implements jobs.Tx.
func (t jobsTx) Billing() billing.Tx { return billingTx(t) }

// QueueDelivery implements jobs.Tx.
func (t jobsTx) QueueDelivery(ctx context.Context, del deliveries.Delivery) error {
	return t.d.insertDelivery(ctx, t.tx.tx, del)
}

// GetJob implements jobs.Store.
func (s Jobs) GetJob(ctx context.Context, owner, id string) (jobs.Job, error) {
	d := s.d
	q := `SELECT ` + jobViewCols + ` FROM jobs WHERE id = $1`
	args := []any{id}
	if owner != "" {
		q += ` AND user_id = $2`
		args = append(args, owner)
	}
	j, err := scanJobView(d.read.QueryRowContext(ctx, q, args...))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return jobs.Job{}, jobs.ErrNotFound
	case err != nil:
		return jobs.Job{}, d.errorf("get job", err)
	}
	return j, nil
}

// ReadJob implements jobs.Store.
func (s Jobs) ReadJob(ctx context.Context, id string) (jobs.Job, error) {
	d := s.d
	j, err := scanJob(d.read.QueryRowContext(ctx, `SELECT `+jobCols+` FROM jobs WHERE id = $1`, id))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return jobs.Job{}, jobs.ErrNotFound
	case err != nil:
		return jobs.Job{}, d.errorf("read job", err)
	}
	return j, nil
}

// ListJobs implements jobs.Store.
func (s Jobs) ListJobs(ctx context.Context, owner string, state jobs.JobState, p paging.Page) ([]jobs.Job, int, error) {
	var w where
	w.add(`user_id = $%d`, owner)
	if state != "" {
		w.add(`state = $%d`, string(state))
	}
	return listPage(ctx, s.d, "jobs", jobViewCols, "jobs", w, newestFirst, p, scanJobView)
}

// ListRuns implements jobs.Store.
func (s Jobs) ListRuns(ctx context.Context, jobID string, state jobs.RunState, p paging.Page) ([]jobs.Run, int, error) {
	var w where
	w.add(`r.job_id = $%d`, jobID)
	if state != "" {
		w.add(`r.state = $%d`, string(state))
	}
	cols := "r." + strings.ReplaceAll(strings.Join(strings.Fields(runCols), " "), ", ", ", r.") + ", h.name"
	return listPageCounted(ctx, s.d, "job runs", cols, "job_runs r LEFT JOIN hosts h ON h.id = r.host_id", w, keyOrder{Tie: "r.seq", TieKind: kindInt}, p,
		scanRunNamed, `SELECT count(*) FROM job_runs r`+w.sql(), w.args...)
}

// RunHosts implements jobs.Store.
func (s Jobs) RunHosts(ctx context.Context, jobID string, states []jobs.RunState) ([]string, error) {
	d := s.d
	args := []any{jobID}
	for _, st := range states {
		args = append(args, string(st))
	}
	rows, err := d.read.QueryContext(ctx, `SELECT host_id FROM job_runs WHERE job_id = $1 AND state IN (`+marks(2, len(states))+
		`) ORDER BY seq`, args...)
	if err != nil {
		return nil, d.errorf("run hosts", err)
	}
	return collect(rows, func(r rowScanner) (string, error) {
		var h string
		return h, r.Scan(&h)
	})
}

// GetOutput implements jobs.Store.
func (s Jobs) GetOutput(ctx context.Context, jobID, hostID string, now time.Time) (jobs.Output, error) {
	d := s.d
	var o jobs.Output
	var exit sql.NullInt64
	var result string
	err := d.read.QueryRowContext(ctx, `SELECT run_id, job_id, host_id, exit_code, stdout, stderr, result, expires_at
		FROM job_outputs WHERE job_id = $1 AND host_id = $2 AND expires_at > $3`, jobID, hostID, d.timeArg(now)).
		Scan(&o.RunID, &o.JobID, &o.HostID, &exit, &o.Stdout, &o.Stderr, &result, timeDest{&o.ExpiresAt})
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return jobs.Output{}, jobs.ErrNotFound
	case err != nil:
		return jobs.Output{}, d.errorf("get output", err)
	}
	if exit.Valid {
		c := int(exit.Int64)
		o.ExitCode = &c
	}
	if result != "" {
		o.Result = json.RawMessage(result)
	}
	return o, nil
}

// LeaseJobs implements jobs.Store.
func (s Jobs) LeaseJobs(ctx context.Context, instance string, now, until time.Time, limit int) ([]jobs.Job, error) {
	d := s.d
	// Most of the time no job is unfinished: a read, not a write
	// transaction every tick on every instance.
	var one int
	switch err := d.read.QueryRowContext(ctx, `SELECT 1 FROM jobs WHERE finished_at IS NULL LIMIT 1`).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, d.errorf("any unfinished job", err)
	}
	var out []jobs.Job
	err := d.withTx(ctx, func(tx *sql.Tx) error {
		// The outer conditions repeat the inner ones: PostgreSQL checks
		// them again on a row another instance leased meanwhile.
		rows, err := tx.QueryContext(ctx, `UPDATE jobs SET driver = $1, lease_until = $2
			WHERE finished_at IS NULL AND (driver = $1 OR lease_until IS NULL OR lease_until < $3) AND id IN (
			SELECT id FROM jobs WHERE finished_at IS NULL AND (driver = $1 OR lease_until IS NULL OR lease_until < $3)
			ORDER BY created_at LIMIT $4) RETURNING `+jobCols, instance, d.timeArg(until), d.timeArg(now), int64(limit))
		if err != nil {
			return d.errorf("lease jobs", err)
		}
		out, err = collect(rows, scanJob)
		return err
	})
	return out, err
}

// ReleaseJobs implements jobs.Store.
func (s Jobs) ReleaseJobs(ctx context.Context, instance string) error {
	_, err := s.d.write.ExecContext(ctx, `UPDATE jobs SET lease_until = NULL, driver = '' WHERE driver = $1 AND finished_at IS NULL`, instance)
	if err != nil {
		return s.d.errorf("release jobs", err)
	}
	return nil
}

func (s Jobs) runs(ctx context.Context, what, cond string, args ...any) ([]jobs.Run, error) {
	rows, err := s.d.read.QueryContext(ctx, `SELECT `+runCols+` FROM job_runs WHERE `+cond, args...)
	if err != nil {
		return nil, s.d.errorf(what, err)
	}
	return collect(rows, scanRun)
}

// Candidates implements jobs.Store.
func (s Jobs) Candidates(ctx context.Context, jobID string, maxWave, limit int) ([]jobs.Run, error) {
	return s.runs(ctx, "queued runs", candidatesCond, jobID, int64(maxWave), int64(limit))
}

// candidatesCond picks a job's next queued runs from job_runs_claim
// (migration 0020), in seq order: the claim reads as many index entries as
// it takes, however many of the job's runs have finished.
const candidatesCond = `job_id = $1 AND state = 'queued' AND waiting = 0 AND wave <= $2 ORDER BY seq LIMIT $3`

// Waiting implements jobs.Store.
func (s Jobs) Waiting(ctx context.Context, jobID string, limit int) ([]jobs.Run, error) {
	return s.runs(ctx, "waiting runs", `job_id = $1 AND state = 'queued' AND waiting = 1 LIMIT $2`, jobID, int64(limit))
}

// SetWaiting implements jobs.Store.
func (s Jobs) SetWaiting(ctx context.Context, runIDs []string, waiting bool) error {
	return setWaiting(ctx, s.d, s.d.write, runIDs, waiting)
}

// AnyWaiting implements jobs.Store.
func (s Jobs) AnyWaiting(ctx context.Context) (bool, error) {
	var one int
	err := s.d.read.QueryRowContext(ctx, `SELECT 1 FROM job_runs WHERE state = 'queued' AND waiting = 1 LIMIT 1`).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, s.d.errorf("any waiting run", err)
	}
	return true, nil
}

// WakeHost implements jobs.Store.
func (s Jobs) WakeHost(ctx context.Context, hostID string) (int, error) {
	res, err := s.d.write.ExecContext(ctx, `UPDATE job_runs SET waiting = 0 WHERE host_id = $1 AND state = 'queued' AND waiting = 1`, hostID)
	if err != nil {
		return 0, s.d.errorf("wake host runs", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// Overdue implements jobs.Store.
func (s Jobs) Overdue(ctx context.Context, before time.Time, limit int) ([]jobs.Run, error) {
	return s.runs(ctx, "overdue runs", `state = 'running' AND deadline_at < $1 ORDER BY deadline_at LIMIT $2`,
		s.d.timeArg(before), int64(limit))
}

// PruneOutputs implements jobs.Store.
func (s Jobs) PruneOutputs(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.d.write.ExecContext(ctx, `DELETE FROM job_outputs WHERE expires_at <= $1`, s.d.timeArg(now))
	if err != nil {
		return 0, s.d.errorf("prune job outputs", err)
	}
	return res.RowsAffected()
}
