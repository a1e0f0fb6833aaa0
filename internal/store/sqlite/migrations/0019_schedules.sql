-- Schedules (docs/schedules.md), the users' webhook secrets and user-level
-- webhook deliveries (docs/webhooks.md, "job.finished"). The same schema
-- as the PostgreSQL migration of this name, which explains it.
--
-- SQLite cannot drop a NOT NULL constraint, so webhook_deliveries is
-- rebuilt with host_id nullable: copied whole (seq included, so the
-- AUTOINCREMENT sequence carries on), then its indexes made again.

-- +goose Up
CREATE TABLE schedules (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id),
    name        TEXT NOT NULL,
    job         TEXT NOT NULL,
    at_time     TEXT,
    cron        TEXT NOT NULL DEFAULT '',
    timezone    TEXT NOT NULL,
    paused      INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    next_run_at TEXT,
    last_run_at TEXT,
    last_job_id TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
) STRICT;
CREATE INDEX schedules_owner_newest ON schedules (user_id, created_at DESC, id DESC);
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE next_run_at IS NOT NULL;

CREATE TABLE schedule_runs (
    id          TEXT PRIMARY KEY,
    schedule_id TEXT NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
    at          TEXT NOT NULL,
    fired_at    TEXT NOT NULL,
    job_id      TEXT NOT NULL DEFAULT '',
    error       TEXT NOT NULL DEFAULT '',
    message     TEXT NOT NULL DEFAULT '',
    UNIQUE (schedule_id, at)
) STRICT;
CREATE INDEX schedule_runs_newest ON schedule_runs (schedule_id, at DESC, id DESC);

CREATE TABLE user_webhook_secrets (
    user_id       TEXT PRIMARY KEY REFERENCES users (id),
    secret_sealed BLOB NOT NULL,
    created_at    TEXT NOT NULL
) STRICT;

CREATE TABLE webhook_deliveries_0019 (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    host_id         TEXT REFERENCES hosts (id),
    user_id         TEXT NOT NULL REFERENCES users (id),
    event_type      TEXT NOT NULL,
    format          TEXT NOT NULL CHECK (format IN ('A', 'B')),
    status          TEXT NOT NULL CHECK (status IN ('pending', 'retrying', 'success', 'dead_letter', 'skipped_no_url')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    target_url      TEXT NOT NULL DEFAULT '',
    http_status     INTEGER,
    last_error      TEXT NOT NULL DEFAULT '',
    payload         TEXT NOT NULL,
    secrets_sealed  BLOB NOT NULL,
    next_attempt_at TEXT NOT NULL,
    lease_owner     TEXT NOT NULL DEFAULT '',
    lease_until     TEXT,
    created_at      TEXT NOT NULL,
    delivered_at    TEXT
) STRICT;
INSERT INTO webhook_deliveries_0019 SELECT * FROM webhook_deliveries;
DROP TABLE webhook_deliveries;
ALTER TABLE webhook_deliveries_0019 RENAME TO webhook_deliveries;
CREATE INDEX webhook_deliveries_host_newest ON webhook_deliveries (host_id, seq DESC);
CREATE INDEX webhook_deliveries_unfinished ON webhook_deliveries (host_id, seq)
    WHERE status IN ('pending', 'retrying');
CREATE INDEX webhook_deliveries_dead ON webhook_deliveries (seq) WHERE status = 'dead_letter';
CREATE INDEX webhook_deliveries_user_newest ON webhook_deliveries (user_id, seq DESC) WHERE host_id IS NULL;

-- +goose Down
DROP INDEX webhook_deliveries_user_newest;
DELETE FROM webhook_deliveries WHERE host_id IS NULL;
DROP TABLE user_webhook_secrets;
DROP TABLE schedule_runs;
DROP TABLE schedules;
