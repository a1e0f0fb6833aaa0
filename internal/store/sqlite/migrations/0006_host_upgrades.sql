-- Each host's latest agent upgrade (package upgrades). One row per host:
-- a new push replaces a finished one. Every state change is also a host
-- event, so the history lives in host_events.
-- The same schema as the PostgreSQL migration of this name.

-- +goose Up
CREATE TABLE host_upgrades (
    host_id      TEXT PRIMARY KEY REFERENCES hosts (id),
    version      TEXT NOT NULL,
    from_version TEXT NOT NULL DEFAULT '',
    state        TEXT NOT NULL CHECK (state IN ('requested', 'downloading', 'verifying', 'restarting', 'done', 'failed', 'rolled_back')),
    reason       TEXT NOT NULL DEFAULT '',
    requested_by TEXT NOT NULL,
    requested_at TEXT NOT NULL,
    updated_at   TEXT NOT NULL
) STRICT;
-- The sweeper looks for unfinished upgrades that stopped moving.
CREATE INDEX host_upgrades_unfinished ON host_upgrades (updated_at)
    WHERE state NOT IN ('done', 'failed', 'rolled_back');

-- +goose Down
DROP TABLE host_upgrades;
