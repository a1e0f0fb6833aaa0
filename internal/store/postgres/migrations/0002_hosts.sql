-- Customers' hosts with their credentials, their metrics and events
-- history, and the client API's keys.
--
-- Hosts are deleted softly (deleted_at): the row stays for the history and
-- to keep the bid reserved. UNIQUE (user_id, bid) therefore spans deleted
-- hosts too, so a bid is never reused within one user's hosts.
--
-- last_seen_at and last_online_at are written for every host every flush
-- interval; they are in no index, so those updates stay HOT updates.

-- +goose Up
CREATE TABLE hosts (
    id                       text PRIMARY KEY,
    user_id                  text NOT NULL REFERENCES users (id),
    name                     text NOT NULL,
    bid                      bigint NOT NULL,
    listen_port              integer NOT NULL,
    public_ip                text NOT NULL DEFAULT '',
    os                       text NOT NULL DEFAULT '',
    installed_version        text NOT NULL DEFAULT '',
    report_url               text NOT NULL DEFAULT '',
    status                   text NOT NULL CHECK (status IN ('pending', 'online', 'stale', 'offline', 'banned')),
    last_seen_at             timestamptz,
    last_online_at           timestamptz,
    created_at               timestamptz NOT NULL,
    deleted_at               timestamptz,
    secret_sealed            bytea NOT NULL, -- the L1 secret, sealed by the keyring
    agent_pubkey             bytea,          -- raw ed25519 key; NULL before the first issuance
    cred_gen                 bigint NOT NULL DEFAULT 0,
    install_token_hash       bytea,          -- SHA-256; NULL once consumed
    install_token_expires_at timestamptz,
    UNIQUE (user_id, bid)
);
CREATE INDEX hosts_owner_newest ON hosts (user_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX hosts_newest ON hosts (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX hosts_status_newest ON hosts (status, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- seq orders rows inserted at the same time and bounds the history.
CREATE TABLE host_metrics (
    seq        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    host_id    text NOT NULL REFERENCES hosts (id),
    at         timestamptz NOT NULL,
    cpu_pct    double precision NOT NULL,
    mem_pct    double precision NOT NULL,
    disk_pct   double precision NOT NULL,
    net_rx_bps double precision NOT NULL,
    net_tx_bps double precision NOT NULL,
    tcp_conns  bigint NOT NULL,
    uptime_s   bigint NOT NULL
);
CREATE INDEX host_metrics_host_newest ON host_metrics (host_id, at DESC, seq DESC);

CREATE TABLE host_events (
    seq     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id      text NOT NULL UNIQUE,
    host_id text NOT NULL REFERENCES hosts (id),
    at      timestamptz NOT NULL,
    kind    text NOT NULL,
    message text NOT NULL
);
CREATE INDEX host_events_host_newest ON host_events (host_id, at DESC, seq DESC);

CREATE TABLE api_keys (
    id           text PRIMARY KEY,
    user_id      text NOT NULL REFERENCES users (id),
    name         text NOT NULL,
    secret_hash  bytea NOT NULL, -- SHA-256 of the secret
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz,
    deleted_at   timestamptz
);
CREATE INDEX api_keys_owner_newest ON api_keys (user_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- +goose Down
DROP TABLE api_keys;
DROP TABLE host_events;
DROP TABLE host_metrics;
DROP TABLE hosts;
