-- GET /v1/user/hosts pages one user's hosts by name, last seen or, within
-- a status, newest first (docs/hosts.md, "Listing hosts"). Newest first
-- over all statuses is hosts_owner_newest (0002). NULL last_seen_at sorts
-- first, SQLite's default, as in the PostgreSQL migration of this name.

-- +goose Up
CREATE INDEX hosts_owner_name ON hosts (user_id, name, id) WHERE deleted_at IS NULL;
CREATE INDEX hosts_owner_last_seen ON hosts (user_id, last_seen_at, id) WHERE deleted_at IS NULL;
CREATE INDEX hosts_owner_status_newest ON hosts (user_id, status, created_at DESC, id DESC) WHERE deleted_at IS NULL;

-- +goose Down
DROP INDEX hosts_owner_status_newest;
DROP INDEX hosts_owner_last_seen;
DROP INDEX hosts_owner_name;
