-- Indexed search and orders of the admin console's lists (docs/hosts.md,
-- "Searching hosts"): GET /v1/admin/hosts?q= (part of the owner's email,
-- the host name, id or public IP), GET /v1/user/hosts?q= (part of the
-- name) and GET /v1/admin/users?q= (part of the email or display name).
--
-- A query of three characters or more is a substring of lower(column),
-- found through a pg_trgm GIN index per column; the store asks each
-- column's index on its own and unions the ids, so the OR over several
-- columns and the join to the owner's email never fall back to a scan. A
-- shorter query has no trigram to look up: it matches the start of a
-- column instead, a range over the column's lower() in byte order (the
-- "C" collation, whatever the database's), served by a B-tree.
--
-- pg_trgm ships with PostgreSQL (contrib); creating the extension needs
-- a role allowed to (the database owner on PostgreSQL 13 and later, as
-- pg_trgm is a trusted extension), see docs/configuration.md. The SQLite
-- migration of this name keeps FTS5 trigram tables instead.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX hosts_name_trgm ON hosts USING gin (lower(name) gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX hosts_id_trgm ON hosts USING gin (lower(id) gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX hosts_public_ip_trgm ON hosts USING gin (lower(public_ip) gin_trgm_ops) WHERE deleted_at IS NULL;
CREATE INDEX users_email_trgm ON users USING gin (lower(email) gin_trgm_ops);
CREATE INDEX users_display_name_trgm ON users USING gin (lower(display_name) gin_trgm_ops);

CREATE INDEX hosts_name_prefix ON hosts ((lower(name) COLLATE "C")) WHERE deleted_at IS NULL;
CREATE INDEX hosts_id_prefix ON hosts ((lower(id) COLLATE "C")) WHERE deleted_at IS NULL;
CREATE INDEX hosts_public_ip_prefix ON hosts ((lower(public_ip) COLLATE "C")) WHERE deleted_at IS NULL;
CREATE INDEX users_email_prefix ON users ((lower(email) COLLATE "C"));
CREATE INDEX users_display_name_prefix ON users ((lower(display_name) COLLATE "C"));

-- Orders of the admin lists that an index serves cheaply: columns that
-- rarely change. Newest first is hosts_newest / users_newest (0002,
-- 0001); last_seen_at and status change with every liveness flush and
-- are sorted without an index of their own.
CREATE INDEX hosts_name_order ON hosts (name, id) WHERE deleted_at IS NULL;
CREATE INDEX hosts_version_order ON hosts (installed_version, id) WHERE deleted_at IS NULL;
CREATE INDEX users_display_name_order ON users (display_name, id);

-- +goose Down
DROP INDEX users_display_name_order;
DROP INDEX hosts_version_order;
DROP INDEX hosts_name_order;
DROP INDEX users_display_name_prefix;
DROP INDEX users_email_prefix;
DROP INDEX hosts_public_ip_prefix;
DROP INDEX hosts_id_prefix;
DROP INDEX hosts_name_prefix;
DROP INDEX users_display_name_trgm;
DROP INDEX users_email_trgm;
DROP INDEX hosts_public_ip_trgm;
DROP INDEX hosts_id_trgm;
DROP INDEX hosts_name_trgm;
