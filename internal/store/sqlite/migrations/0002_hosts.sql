-- Customers' hosts with their credentials, their metrics and events
-- history, and the client API's keys; the same schema as the PostgreSQL
-- migration of this name.
--
-- Hosts are deleted softly (deleted_at): the row stays for the history and
-- to keep the bid reserved. UNIQUE (user_id, bid) therefore spans deleted
-- hosts too, so a bid is never reused within one user's hosts.

-- +goose Up
CREATE TABLE hosts (
    id                       TEXT PRIMARY KEY,
    user_id                  TEXT NOT NULL REFERENCES users (id),
    name                     TEXT NOT NULL,
    bid                      INTEGER NOT NULL,
    listen_port              INTEGER NOT NULL,
    public_ip                TEXT NOT NULL DEFAULT '',
    os                       TEXT NOT NULL DEFAULT '',
    installed_version        TEXT NOT NULL DEFAULT '',
    report_url               TEXT NOT NULL DEFAULT '',
    status                   TEXT NOT NULL CHECK (status IN ('pending', 'online', 'stale', 'offline', 'banned')),
    last_seen_at             TEXT,
    last_online_at           TEXT,
    created_at               TEXT NOT NULL,
    deleted_at               TEXT,
    secret_sealed            BLOB NOT NULL, -- the L1 secret, sealed by the keyring
    agent_pubkey             BLOB,          -- raw ed25519 key; NULL before the first issuance
    cred_gen                 INTEGER NOT NULL DEFAULT 0,
    install_token_hash       BLOB,          -- SHA-256; NULL once consumed
    install_token_expires_at TEXT,
    UNIQUE (user_id, bid)
) STRICT;
CREATE INDEX hosts_owner_newest ON hosts (user_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX hosts_newest ON hosts (created_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX hosts_status_newest ON hosts (status, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- seq orders rows inserted at the same time and bounds the history. As an
-- INTEGER PRIMARY KEY it is the rowid, assigned on insert one above the
-- largest; only a host's oldest rows are deleted, so it keeps growing.
CREATE TABLE host_metrics (
    seq        INTEGER PRIMARY KEY,
    host_id    TEXT NOT NULL REFERENCES hosts (id),
    at         TEXT NOT NULL,
    cpu_pct    REAL NOT NULL,
    mem_pct    REAL NOT NULL,
    disk_pct   REAL NOT NULL,
    net_rx_bps REAL NOT NULL,
    net_tx_bps REAL NOT NULL,
    tcp_conns  INTEGER NOT NULL,
    uptime_s   INTEGER NOT NULL
) STRICT;
CREATE INDEX host_metrics_host_newest ON host_metrics (host_id, at DESC, seq DESC);

CREATE TABLE host_events (
    seq     INTEGER PRIMARY KEY,
    id      TEXT NOT NULL UNIQUE,
    host_id TEXT NOT NULL REFERENCES hosts (id),
    at      TEXT NOT NULL,
    kind    TEXT NOT NULL,
    message TEXT NOT NULL
) STRICT;
CREATE INDEX host_events_host_newest ON host_events (host_id, at DESC, seq DESC);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id),
    name         TEXT NOT NULL,
    secret_hash  BLOB NOT NULL, -- SHA-256 of the secret
    created_at   TEXT NOT NULL,
    last_used_at TEXT,
    deleted_at   TEXT
) STRICT;
CREATE INDEX api_keys_owner_newest ON api_keys (user_id, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- +goose Down
DROP TABLE api_keys;
DROP TABLE host_events;
DROP TABLE host_metrics;
DROP TABLE hosts;
