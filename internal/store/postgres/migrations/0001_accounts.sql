-- Users, their sessions and refresh tokens, console admins, the audit log
-- and the server's generated keys. Ids are UUID strings made by the
-- application; text rather than uuid so that a malformed id from a request
-- is simply not found instead of a type error.

-- +goose Up
CREATE TABLE users (
    id            text PRIMARY KEY,
    email         text NOT NULL UNIQUE, -- normalised by the application
    display_name  text NOT NULL,
    status        text NOT NULL CHECK (status IN ('active', 'suspended')),
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL
);
CREATE INDEX users_newest ON users (created_at DESC, id DESC);
CREATE INDEX users_status_newest ON users (status, created_at DESC, id DESC);

CREATE TABLE sessions (
    id         text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users (id),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE refresh_tokens (
    token_hash bytea PRIMARY KEY,
    session_id text NOT NULL REFERENCES sessions (id),
    created_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id);

CREATE TABLE admins (
    id            text PRIMARY KEY,
    username      text NOT NULL UNIQUE, -- normalised by the application
    password_hash text NOT NULL,
    role          text NOT NULL CHECK (role IN ('owner', 'operator', 'finance', 'viewer')),
    status        text NOT NULL,
    created_at    timestamptz NOT NULL
);

-- admin_id is not a foreign key: the log outlives the admins it names.
CREATE TABLE audit_logs (
    id          text PRIMARY KEY,
    admin_id    text NOT NULL,
    admin_role  text NOT NULL,
    action      text NOT NULL,
    target_type text NOT NULL,
    target_id   text NOT NULL,
    request_id  text NOT NULL,
    client_ip   text NOT NULL,
    detail      jsonb,
    created_at  timestamptz NOT NULL
);
CREATE INDEX audit_logs_newest ON audit_logs (created_at DESC, id DESC);
CREATE INDEX audit_logs_admin_newest ON audit_logs (admin_id, created_at DESC, id DESC);
CREATE INDEX audit_logs_action_newest ON audit_logs (action, created_at DESC, id DESC);
CREATE INDEX audit_logs_target_type_newest ON audit_logs (target_type, created_at DESC, id DESC);

CREATE TABLE server_keys (
    name       text PRIMARY KEY,
    key        bytea NOT NULL,
    created_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE server_keys;
DROP TABLE audit_logs;
DROP TABLE admins;
DROP TABLE refresh_tokens;
DROP TABLE sessions;
DROP TABLE users;
