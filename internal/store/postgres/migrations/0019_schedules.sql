-- Schedules (docs/schedules.md), the users' webhook secrets and user-level
-- webhook deliveries (docs/webhooks.md, "job.finished").
--
-- schedules keeps each user's saved job requests with their timing: a
-- one-off `at` or a five-field `cron` in `timezone`. next_run_at is when the
-- schedule fires next (NULL when paused); every hub instance scans the due
-- ones by schedules_due and claims a run by a conditional update of
-- next_run_at, in one transaction with the run's history row, so exactly
-- one instance starts each run. schedule_runs is that history;
-- (schedule_id, at) is unique, a second guard against a double start.
--
-- user_webhook_secrets holds each user's webhook signing secret, sealed by
-- the keyring with the user id as aad.
--
-- webhook_deliveries rows of user-level events (job.finished) have no host:
-- host_id becomes nullable. Such rows are signed with the user's secret,
-- not a chain, so they need no order between them; the worker's "oldest
-- unfinished row of the host" rule compares host ids, which never match
-- NULL, so a host-less row waits for no other. Host rows keep their order.
-- A user's history of host-less rows is webhook_deliveries_user_newest.
-- The same schema as the SQLite migration of this name.

-- +goose Up
CREATE TABLE schedules (
    id          text PRIMARY KEY,
    user_id     text NOT NULL REFERENCES users (id),
    name        text NOT NULL,
    job         text NOT NULL,
    at_time     timestamptz,
    cron        text NOT NULL DEFAULT '',
    timezone    text NOT NULL,
    paused      smallint NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    next_run_at timestamptz,
    last_run_at timestamptz,
    last_job_id text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX schedules_owner_newest ON schedules (user_id, created_at DESC, id DESC);
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE next_run_at IS NOT NULL;

CREATE TABLE schedule_runs (
    id          text PRIMARY KEY,
    schedule_id text NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
    at          timestamptz NOT NULL,
    fired_at    timestamptz NOT NULL,
    job_id      text NOT NULL DEFAULT '',
    error       text NOT NULL DEFAULT '',
    message     text NOT NULL DEFAULT '',
    UNIQUE (schedule_id, at)
);
CREATE INDEX schedule_runs_newest ON schedule_runs (schedule_id, at DESC, id DESC);

CREATE TABLE user_webhook_secrets (
    user_id       text PRIMARY KEY REFERENCES users (id),
    secret_sealed bytea NOT NULL,
    created_at    timestamptz NOT NULL
);

ALTER TABLE webhook_deliveries ALTER COLUMN host_id DROP NOT NULL;
CREATE INDEX webhook_deliveries_user_newest ON webhook_deliveries (user_id, seq DESC) WHERE host_id IS NULL;

-- +goose Down
DROP INDEX webhook_deliveries_user_newest;
DELETE FROM webhook_deliveries WHERE host_id IS NULL;
ALTER TABLE webhook_deliveries ALTER COLUMN host_id SET NOT NULL;
DROP TABLE user_webhook_secrets;
DROP TABLE schedule_runs;
DROP TABLE schedules;
