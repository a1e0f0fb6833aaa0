-- Jobs across the fleet (docs/jobs.md).
--
-- jobs keeps one row per job with its counters per run state, so a read of
-- a job (GET and the console's polling) is one row. The target as given
-- (up to 100,000 host ids) is a column of its own, which the driver never
-- reads. A job is driven by one
-- hub instance at a time under a lease (driver, lease_until); jobs_active
-- finds the unfinished ones. job_runs keeps one row per host of a job:
-- results are read by (job_id, state, seq); queued runs by host
-- (job_runs_queued_host: waking the runs of a host that connects); running
-- runs by deadline (the sweeper of interrupted runs). job_outputs keeps a
-- run's whole output until expires_at. The same as the SQLite migration of
-- this name.

-- +goose Up
CREATE TABLE jobs (
    id            text PRIMARY KEY,
    user_id       text NOT NULL REFERENCES users (id),
    spec          text NOT NULL,
    target        text NOT NULL,
    state         text NOT NULL CHECK (state IN ('running', 'finished', 'canceled')),
    host_count    bigint NOT NULL CHECK (host_count >= 0),
    queued        bigint NOT NULL DEFAULT 0 CHECK (queued >= 0),
    running       bigint NOT NULL DEFAULT 0 CHECK (running >= 0),
    succeeded     bigint NOT NULL DEFAULT 0 CHECK (succeeded >= 0),
    failed        bigint NOT NULL DEFAULT 0 CHECK (failed >= 0),
    skipped       bigint NOT NULL DEFAULT 0 CHECK (skipped >= 0),
    expired       bigint NOT NULL DEFAULT 0 CHECK (expired >= 0),
    canceled      bigint NOT NULL DEFAULT 0 CHECK (canceled >= 0),
    wave          bigint NOT NULL DEFAULT 1,
    wave_done_at  timestamptz,
    stop_reason   text NOT NULL DEFAULT '',
    retry_of      text NOT NULL DEFAULT '',
    schedule_id   text NOT NULL DEFAULT '',
    charged       bigint NOT NULL DEFAULT 0,
    driver        text NOT NULL DEFAULT '',
    lease_until   timestamptz,
    expires_at    timestamptz NOT NULL,
    created_at    timestamptz NOT NULL,
    finished_at   timestamptz
);
CREATE INDEX jobs_user_newest ON jobs (user_id, created_at DESC, id DESC);
CREATE INDEX jobs_active ON jobs (lease_until) WHERE finished_at IS NULL;

CREATE TABLE job_runs (
    id           text PRIMARY KEY,
    job_id       text NOT NULL REFERENCES jobs (id),
    host_id      text NOT NULL,
    seq          bigint NOT NULL,
    wave         bigint NOT NULL,
    state        text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'skipped', 'expired', 'canceled')),
    waiting      bigint NOT NULL DEFAULT 0,
    claimed_by   text NOT NULL DEFAULT '',
    deadline_at  timestamptz,
    exit_code    bigint,
    stdout       text NOT NULL DEFAULT '',
    stderr       text NOT NULL DEFAULT '',
    truncated    bigint NOT NULL DEFAULT 0,
    error        text NOT NULL DEFAULT '',
    message      text NOT NULL DEFAULT '',
    charged      bigint NOT NULL DEFAULT 0,
    started_at   timestamptz,
    finished_at  timestamptz,
    UNIQUE (job_id, seq)
);
CREATE INDEX job_runs_results ON job_runs (job_id, state, seq);
CREATE INDEX job_runs_queued_host ON job_runs (host_id) WHERE state = 'queued';
CREATE INDEX job_runs_waiting ON job_runs (job_id) WHERE state = 'queued' AND waiting = 1;
CREATE INDEX job_runs_deadline ON job_runs (deadline_at) WHERE state = 'running';

CREATE TABLE job_outputs (
    run_id     text PRIMARY KEY REFERENCES job_runs (id),
    job_id     text NOT NULL,
    host_id    text NOT NULL,
    exit_code  bigint,
    stdout     text NOT NULL,
    stderr     text NOT NULL,
    result     text NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX job_outputs_host ON job_outputs (job_id, host_id);
CREATE INDEX job_outputs_expiry ON job_outputs (expires_at);

-- +goose Down
DROP TABLE job_outputs;
DROP TABLE job_runs;
DROP TABLE jobs;
