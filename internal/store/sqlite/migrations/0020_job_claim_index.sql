-- The order a job's runs are claimed in: a job's queued, not waiting runs
-- by seq. The same index as the PostgreSQL migration of this name, which
-- explains it.

-- +goose Up
CREATE INDEX job_runs_claim ON job_runs (job_id, seq) WHERE state = 'queued' AND waiting = 0;

-- +goose Down
DROP INDEX job_runs_claim;
