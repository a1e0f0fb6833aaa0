-- Each host's latest agent upgrade (package upgrades). One row per host:
-- a new push replaces a finished one. Every state change is also a host
-- event, so the history lives in host_events.

-- +goose Up
CREATE TABLE host_upgrades (
    host_id      text PRIMARY KEY REFERENCES hosts (id),
    version      text NOT NULL,
    from_version text NOT NULL DEFAULT '',
    state        text NOT NULL CHECK (state IN ('requested', 'downloading', 'verifying', 'restarting', 'done', 'failed', 'rolled_back')),
    reason       text NOT NULL DEFAULT '',
    requested_by text NOT NULL,
    requested_at timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL
);
-- The sweeper looks for unfinished upgrades that stopped moving.
CREATE INDEX host_upgrades_unfinished ON host_upgrades (updated_at)
    WHERE state NOT IN ('done', 'failed', 'rolled_back');

-- +goose Down
DROP TABLE host_upgrades;
