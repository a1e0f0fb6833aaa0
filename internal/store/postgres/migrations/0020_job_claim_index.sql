-- The order a job's runs are claimed in (docs/jobs.md): a job's queued,
-- not waiting runs by seq, read from an index that holds only those, so a
-- claim reads the next few entries and stops. Without it the planner
-- answered "the next 100 queued runs of this job" from job_runs_results
-- with a bitmap scan and a sort of every queued run of the job: fine while
-- its statistics knew the job's size, 250 ms a claim once 80,000 of
-- 100,000 runs had finished under statistics taken when the job was new
-- (measured in the 100,000-agent scale run of 2026-11-28). The same index
-- as the SQLite migration of this name.

-- +goose Up
CREATE INDEX job_runs_claim ON job_runs (job_id, seq) WHERE state = 'queued' AND waiting = 0;

-- +goose Down
DROP INDEX job_runs_claim;
