-- Users, their sessions and refresh tokens, console admins, the audit log
-- and the server's generated keys; the same schema as the PostgreSQL
-- migration of this name.
--
-- Tables are STRICT, so a value of the wrong type is an error rather than
-- silently stored. Times are TEXT in sqldb.TimeFormat
-- (2006-01-02T15:04:05.000000Z): UTC and fixed width, so comparing and
-- ordering the text compares and orders the times.

-- +goose Up
CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE, -- normalised by the application
    display_name  TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    password_hash TEXT NOT NULL,
    created_at    TEXT NOT NULL
) STRICT;
CREATE INDEX users_newest ON users (created_at DESC, id DESC);
CREATE INDEX users_status_newest ON users (status, created_at DESC, id DESC);

CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT
) STRICT;
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE refresh_tokens (
    token_hash BLOB PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    created_at TEXT NOT NULL,
    used_at    TEXT
) STRICT;
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);

CREATE TABLE admins (
    id            TEXT PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE, -- normalised by the application
    password_hash TEXT NOT NULL,
    role          TEXT NOT NULL CHECK (role IN ('owner', 'operator', 'finance', 'viewer')),
    status        TEXT NOT NULL,
    created_at    TEXT NOT NULL
) STRICT;

-- admin_id is not a foreign key: the log outlives the admins it names.
-- detail must be JSON, as PostgreSQL's jsonb column enforces.
CREATE TABLE audit_logs (
    id          TEXT PRIMARY KEY,
    admin_id    TEXT NOT NULL,
    admin_role  TEXT NOT NULL,
    action      TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id   TEXT NOT NULL,
    request_id  TEXT NOT NULL,
    client_ip   TEXT NOT NULL,
    detail      TEXT CHECK (detail IS NULL OR json_valid(detail)),
    created_at  TEXT NOT NULL
) STRICT;
CREATE INDEX audit_logs_newest ON audit_logs (created_at DESC, id DESC);
CREATE INDEX audit_logs_admin_newest ON audit_logs (admin_id, created_at DESC, id DESC);
CREATE INDEX audit_logs_action_newest ON audit_logs (action, created_at DESC, id DESC);
CREATE INDEX audit_logs_target_type_newest ON audit_logs (target_type, created_at DESC, id DESC);

CREATE TABLE server_keys (
    name       TEXT PRIMARY KEY,
    key        BLOB NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

-- +goose Down
DROP TABLE server_keys;
DROP TABLE audit_logs;
DROP TABLE admins;
DROP TABLE refresh_tokens;
DROP TABLE sessions;
DROP TABLE users;
