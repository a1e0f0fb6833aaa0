-- GET /v1/user/hosts pages one user's hosts by name, last seen or, within
-- a status, newest first (docs/hosts.md, "Listing hosts"). Newest first
-- over all statuses is hosts_owner_newest (0002). NULL last_seen_at sorts
-- first, SQLite's default, as in the PostgreSQL migration of this name.
--
-- host_counts keeps each user's number of undeleted hosts, so the total of
-- an unfiltered page is one row rather than a count of the user's whole
-- fleet. Triggers keep it, so no write path can forget it: a host counts
-- from its insert until deleted_at is first set.

-- +goose Up
CREATE INDEX hosts_owner_name ON hosts (user_id, name, id) WHERE deleted_at IS NULL;
CREATE INDEX hosts_owner_last_seen ON hosts (user_id, last_seen_at, id) WHERE deleted_at IS NULL;
CREATE INDEX hosts_owner_status_newest ON hosts (user_id, status, created_at DESC, id DESC) WHERE deleted_at IS NULL;

CREATE TABLE host_counts (
    user_id TEXT PRIMARY KEY REFERENCES users (id),
    n       INTEGER NOT NULL
) STRICT;
INSERT INTO host_counts (user_id, n)
SELECT user_id, count(*) FROM hosts WHERE deleted_at IS NULL GROUP BY user_id;

-- +goose StatementBegin
CREATE TRIGGER host_counts_insert AFTER INSERT ON hosts WHEN NEW.deleted_at IS NULL
BEGIN
    INSERT INTO host_counts (user_id, n) VALUES (NEW.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER host_counts_delete AFTER UPDATE OF deleted_at ON hosts
WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL
BEGIN
    UPDATE host_counts SET n = n - 1 WHERE user_id = NEW.user_id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER host_counts_delete;
DROP TRIGGER host_counts_insert;
DROP TABLE host_counts;
DROP INDEX hosts_owner_status_newest;
DROP INDEX hosts_owner_last_seen;
DROP INDEX hosts_owner_name;
