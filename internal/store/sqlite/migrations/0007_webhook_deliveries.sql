-- The durable webhook queue (package deliveries): one row per L1
-- configuration change, queued in the change's transaction and sent by the
-- hub's delivery worker. The same schema as the PostgreSQL migration of this
-- name.
--
-- seq orders a host's deliveries. AUTOINCREMENT never reuses a value, even
-- after the largest row is deleted, so seq only grows; the insert holds the
-- write lock (SQLite's single writer), so seq order is commit order.
-- payload is the event's JSON with its two secrets blanked; secrets_sealed
-- holds them, sealed by the keyring with the delivery id as aad.

-- +goose Up
CREATE TABLE webhook_deliveries (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    host_id         TEXT NOT NULL REFERENCES hosts (id),
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
-- History, newest first.
CREATE INDEX webhook_deliveries_host_newest ON webhook_deliveries (host_id, seq DESC);
-- The worker's scan and its "oldest unfinished of the host" check.
CREATE INDEX webhook_deliveries_unfinished ON webhook_deliveries (host_id, seq)
    WHERE status IN ('pending', 'retrying');

-- +goose Down
DROP TABLE webhook_deliveries;
