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
-- run's whole output until expires_at. The same schema as the PostgreSQL migration of
-- this name.

-- +goose Up
CREATE TABLE jobs (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id),
    spec          TEXT NOT NULL,
    target        TEXT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('running', 'finished', 'canceled')),
    host_count    INTEGER NOT NULL CHECK (host_count >= 0),
    queued        INTEGER NOT NULL DEFAULT 0 CHECK (queued >= 0),
    running       INTEGER NOT NULL DEFAULT 0 CHECK (running >= 0),
    succeeded     INTEGER NOT NULL DEFAULT 0 CHECK (succeeded >= 0),
    failed        INTEGER NOT NULL DEFAULT 0 CHECK (failed >= 0),
    skipped       INTEGER NOT NULL DEFAULT 0 CHECK (skipped >= 0),
    expired       INTEGER NOT NULL DEFAULT 0 CHECK (expired >= 0),
    canceled      INTEGER NOT NULL DEFAULT 0 CHECK (canceled >= 0),
    wave          INTEGER NOT NULL DEFAULT 1,
    wave_done_at  TEXT,
    stop_reason   TEXT NOT NULL DEFAULT '',
    retry_of      TEXT NOT NULL DEFAULT '',
    schedule_id   TEXT NOT NULL DEFAULT '',
    charged       INTEGER NOT NULL DEFAULT 0,
    driver        TEXT NOT NULL DEFAULT '',
    lease_until   TEXT,
    expires_at    TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    finished_at   TEXT
) STRICT;
CREATE INDEX jobs_user_newest ON jobs (user_id, created_at DESC, id DESC);
CREATE INDEX jobs_active ON jobs (lease_until) WHERE finished_at IS NULL;

CREATE TABLE job_runs (
    id           TEXT PRIMARY KEY,
    job_id       TEXT NOT NULL REFERENCES jobs (id),
    host_id      TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    wave         INTEGER NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'skipped', 'expired', 'canceled')),
    waiting      INTEGER NOT NULL DEFAULT 0,
    claimed_by   TEXT NOT NULL DEFAULT '',
    deadline_at  TEXT,
    exit_code    INTEGER,
    stdout       TEXT NOT NULL DEFAULT '',
    stderr       TEXT NOT NULL DEFAULT '',
    truncated    INTEGER NOT NULL DEFAULT 0,
    error        TEXT NOT NULL DEFAULT '',
    message      TEXT NOT NULL DEFAULT '',
    charged      INTEGER NOT NULL DEFAULT 0,
    started_at   TEXT,
    finished_at  TEXT,
    UNIQUE (job_id, seq)
) STRICT;
CREATE INDEX job_runs_results ON job_runs (job_id, state, seq);
CREATE INDEX job_runs_queued_host ON job_runs (host_id) WHERE state = 'queued';
CREATE INDEX job_runs_waiting ON job_runs (job_id) WHERE state = 'queued' AND waiting = 1;
CREATE INDEX job_runs_deadline ON job_runs (deadline_at) WHERE state = 'running';

CREATE TABLE job_outputs (
    run_id     TEXT PRIMARY KEY REFERENCES job_runs (id),
    job_id     TEXT NOT NULL,
    host_id    TEXT NOT NULL,
    exit_code  INTEGER,
    stdout     TEXT NOT NULL,
    stderr     TEXT NOT NULL,
    result     TEXT NOT NULL,
    expires_at TEXT NOT NULL
) STRICT;
CREATE INDEX job_outputs_host ON job_outputs (job_id, host_id);
CREATE INDEX job_outputs_expiry ON job_outputs (expires_at);

-- +goose Down
DROP TABLE job_outputs;
DROP TABLE job_runs;
DROP TABLE jobs;
