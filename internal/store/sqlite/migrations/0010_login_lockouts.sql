-- Failed-login counts and locks (package lockout), kept durably so that a
-- restart of the hub or of coordination unlocks nothing. name_hash is a
-- hash of the normalised email or username, never the name itself.
-- window_start is when the current count began; locked_until, when set,
-- is when the last lock ends. Times are TEXT in sqldb.TimeFormat.

-- +goose Up
CREATE TABLE login_lockouts (
    kind         TEXT NOT NULL, -- 'user' or 'admin'
    name_hash    TEXT NOT NULL,
    failures     INTEGER NOT NULL,
    window_start TEXT NOT NULL,
    locked_until TEXT,
    PRIMARY KEY (kind, name_hash)
) STRICT;
CREATE INDEX login_lockouts_window ON login_lockouts (kind, window_start);

-- +goose Down
DROP TABLE login_lockouts;
