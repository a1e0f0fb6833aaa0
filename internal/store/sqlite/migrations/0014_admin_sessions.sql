-- Admin sessions with rotating refresh tokens, as the users' sessions and
-- refresh_tokens of 0001 (docs/admin-roles.md, "Signing in"); and when each
-- admin last signed in. The same schema as the PostgreSQL migration of this
-- name.

-- +goose Up
ALTER TABLE admins ADD COLUMN last_login_at TEXT;

CREATE TABLE admin_sessions (
    id         TEXT PRIMARY KEY,
    admin_id   TEXT NOT NULL REFERENCES admins (id),
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT
) STRICT;
CREATE INDEX admin_sessions_admin ON admin_sessions (admin_id);

CREATE TABLE admin_refresh_tokens (
    token_hash BLOB PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES admin_sessions (id),
    created_at TEXT NOT NULL,
    used_at    TEXT
) STRICT;
CREATE INDEX admin_refresh_tokens_session ON admin_refresh_tokens (session_id);

-- +goose Down
DROP TABLE admin_refresh_tokens;
DROP TABLE admin_sessions;
ALTER TABLE admins DROP COLUMN last_login_at;
