-- The durable webhook queue (package deliveries): one row per L1
-- configuration change, queued in the change's transaction and sent by the
-- hub's delivery worker.
--
-- seq orders a host's deliveries. An identity is assigned at insert, not at
-- commit, so the insert first locks the host's row (FOR UPDATE): the
-- deliveries of one host are then inserted and committed one transaction at
-- a time, and seq order is commit order per host.
-- payload is the event's JSON with its two secrets blanked; secrets_sealed
-- holds them, sealed by the keyring with the delivery id as aad.

-- +goose Up
CREATE TABLE webhook_deliveries (
    seq             bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id              text PRIMARY KEY,
    host_id         text NOT NULL REFERENCES hosts (id),
    user_id         text NOT NULL REFERENCES users (id),
    event_type      text NOT NULL,
    format          text NOT NULL CHECK (format IN ('A', 'B')),
    status          text NOT NULL CHECK (status IN ('pending', 'retrying', 'success', 'dead_letter', 'skipped_no_url')),
    attempts        integer NOT NULL DEFAULT 0,
    target_url      text NOT NULL DEFAULT '',
    http_status     integer,
    last_error      text NOT NULL DEFAULT '',
    payload         text NOT NULL,
    secrets_sealed  bytea NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    lease_owner     text NOT NULL DEFAULT '',
    lease_until     timestamptz,
    created_at      timestamptz NOT NULL,
    delivered_at    timestamptz
);
-- History, newest first.
CREATE INDEX webhook_deliveries_host_newest ON webhook_deliveries (host_id, seq DESC);
-- The worker's scan and its "oldest unfinished of the host" check.
CREATE INDEX webhook_deliveries_unfinished ON webhook_deliveries (host_id, seq)
    WHERE status IN ('pending', 'retrying');

-- +goose Down
DROP TABLE webhook_deliveries;
