-- Admin sessions with rotating refresh tokens, as the users' sessions and
-- refresh_tokens of 0001 (docs/admin-roles.md, "Signing in"); and when each
-- admin last signed in.

-- +goose Up
ALTER TABLE admins ADD COLUMN last_login_at timestamptz;

CREATE TABLE admin_sessions (
    id         text PRIMARY KEY,
    admin_id   text NOT NULL REFERENCES admins (id),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE INDEX admin_sessions_admin ON admin_sessions (admin_id);

CREATE TABLE admin_refresh_tokens (
    token_hash bytea PRIMARY KEY,
    session_id text NOT NULL REFERENCES admin_sessions (id),
    created_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX admin_refresh_tokens_session ON admin_refresh_tokens (session_id);

-- +goose Down
DROP TABLE admin_refresh_tokens;
DROP TABLE admin_sessions;
ALTER TABLE admins DROP COLUMN last_login_at;
