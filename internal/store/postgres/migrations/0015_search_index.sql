-- Indexed search and orders of the admin console's lists (docs/hosts.md,
-- "Searching hosts"): GET /v1/admin/hosts?q= (part of the owner's email,
-- the host name, id or public IP), GET /v1/user/hosts?q= (part of the
-- name) and GET /v1/admin/users?q= (part of the email or display name).
--
-- A query of three characters or more is a substring of lower(column),
-- found through a pg_trgm GIN index per column; the store asks each
-- column's index on its own and unions the matches, so the OR over
-- several columns and the join to the owner's email never fall back to a
-- scan. A shorter query has no trigram to look up: it matches the start
-- of a column instead, a range over the column's lower() in byte order
-- (the "C" collation, whatever the database's), served by a B-tree.
--
-- The hosts' searched text lives in host_search, one row per undeleted
-- host, kept by triggers on insert, rename, a new public IP, and soft and
-- hard delete. Not indexes on hosts itself: every liveness flush rewrites
-- each connected host's row (last_seen_at and status are indexed, so the
-- update is never HOT), and each index of hosts takes a new entry for it;
-- six more would double the flush's cost. host_search changes only when
-- the text does.
--
-- pg_trgm ships with PostgreSQL (contrib); creating the extension needs a
-- role allowed to (the database owner on PostgreSQL 13 and later, as
-- pg_trgm is a trusted extension): docs/configuration.md. The SQLite
-- migration of this name keeps FTS5 trigram tables instead.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE host_search (
    id        text PRIMARY KEY,
    name      text NOT NULL,
    public_ip text NOT NULL
);
INSERT INTO host_search (id, name, public_ip)
SELECT id, name, public_ip FROM hosts WHERE deleted_at IS NULL;

-- +goose StatementBegin
CREATE FUNCTION host_search_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO host_search (id, name, public_ip) VALUES (NEW.id, NEW.name, NEW.public_ip);
    ELSIF TG_OP = 'DELETE' OR NEW.deleted_at IS NOT NULL THEN
        DELETE FROM host_search WHERE id = OLD.id;
    ELSE
        UPDATE host_search SET name = NEW.name, public_ip = NEW.public_ip WHERE id = NEW.id;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER host_search_insert AFTER INSERT ON hosts
    FOR EACH ROW WHEN (NEW.deleted_at IS NULL) EXECUTE FUNCTION host_search_keep();
CREATE TRIGGER host_search_update AFTER UPDATE OF name, public_ip, deleted_at ON hosts
    FOR EACH ROW WHEN (OLD.deleted_at IS NULL AND (NEW.deleted_at IS NOT NULL
        OR OLD.name IS DISTINCT FROM NEW.name OR OLD.public_ip IS DISTINCT FROM NEW.public_ip))
    EXECUTE FUNCTION host_search_keep();
CREATE TRIGGER host_search_delete AFTER DELETE ON hosts
    FOR EACH ROW WHEN (OLD.deleted_at IS NULL) EXECUTE FUNCTION host_search_keep();

CREATE INDEX host_search_name_trgm ON host_search USING gin (lower(name) gin_trgm_ops);
CREATE INDEX host_search_id_trgm ON host_search USING gin (lower(id) gin_trgm_ops);
CREATE INDEX host_search_public_ip_trgm ON host_search USING gin (lower(public_ip) gin_trgm_ops);
CREATE INDEX users_email_trgm ON users USING gin (lower(email) gin_trgm_ops);
CREATE INDEX users_display_name_trgm ON users USING gin (lower(display_name) gin_trgm_ops);

CREATE INDEX host_search_name_prefix ON host_search ((lower(name) COLLATE "C"));
CREATE INDEX host_search_id_prefix ON host_search ((lower(id) COLLATE "C"));
CREATE INDEX host_search_public_ip_prefix ON host_search ((lower(public_ip) COLLATE "C"));
CREATE INDEX users_email_prefix ON users ((lower(email) COLLATE "C"));
CREATE INDEX users_display_name_prefix ON users ((lower(display_name) COLLATE "C"));

-- The admin user list by display name. The admin host list's orders get
-- no index of their own here (they do on SQLite): on hosts, one would
-- cost every liveness flush (above); they are top-N sorts of the matches.
CREATE INDEX users_display_name_order ON users (display_name, id);

-- +goose Down
DROP INDEX users_display_name_order;
DROP INDEX users_display_name_prefix;
DROP INDEX users_email_prefix;
DROP INDEX users_display_name_trgm;
DROP INDEX users_email_trgm;
DROP TRIGGER host_search_delete ON hosts;
DROP TRIGGER host_search_update ON hosts;
DROP TRIGGER host_search_insert ON hosts;
DROP FUNCTION host_search_keep();
DROP TABLE host_search;
