-- Indexed search and orders of the admin console's lists (docs/hosts.md,
-- "Searching hosts"), as the PostgreSQL migration of this name does with
-- pg_trgm.
--
-- host_search and user_search are FTS5 tables with the trigram tokenizer
-- (case-insensitive): a phrase query of three characters or more finds
-- every row with it as a substring of the column, through the index. Their
-- rowids are the integer keys of host_search_keys and user_search_keys,
-- not the implicit rowids of hosts and users, which VACUUM (and so
-- `hostgate backup`, VACUUM INTO) may renumber. Deleted hosts leave the
-- index. Triggers keep both in sync with every write path: insert, rename,
-- a new public IP or email, soft and hard delete.
--
-- A query shorter than three characters has no trigram: it matches the
-- start of a column instead, a range over lower(column), served by the
-- B-trees below.

-- +goose Up
CREATE TABLE host_search_keys (
    n  INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE
) STRICT;
CREATE VIRTUAL TABLE host_search USING fts5(id, name, public_ip, tokenize = 'trigram');
INSERT INTO host_search_keys (id) SELECT id FROM hosts WHERE deleted_at IS NULL ORDER BY id;
INSERT INTO host_search (rowid, id, name, public_ip)
SELECT k.n, h.id, h.name, h.public_ip FROM host_search_keys k JOIN hosts h ON h.id = k.id;

-- +goose StatementBegin
CREATE TRIGGER host_search_insert AFTER INSERT ON hosts WHEN NEW.deleted_at IS NULL
BEGIN
    INSERT INTO host_search_keys (id) VALUES (NEW.id);
    INSERT INTO host_search (rowid, id, name, public_ip)
    VALUES ((SELECT n FROM host_search_keys WHERE id = NEW.id), NEW.id, NEW.name, NEW.public_ip);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER host_search_update AFTER UPDATE OF name, public_ip ON hosts
WHEN NEW.deleted_at IS NULL AND (OLD.name IS NOT NEW.name OR OLD.public_ip IS NOT NEW.public_ip)
BEGIN
    UPDATE host_search SET name = NEW.name, public_ip = NEW.public_ip
    WHERE rowid = (SELECT n FROM host_search_keys WHERE id = NEW.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER host_search_soft_delete AFTER UPDATE OF deleted_at ON hosts
WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL
BEGIN
    DELETE FROM host_search WHERE rowid = (SELECT n FROM host_search_keys WHERE id = OLD.id);
    DELETE FROM host_search_keys WHERE id = OLD.id;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER host_search_delete AFTER DELETE ON hosts
BEGIN
    DELETE FROM host_search WHERE rowid = (SELECT n FROM host_search_keys WHERE id = OLD.id);
    DELETE FROM host_search_keys WHERE id = OLD.id;
END;
-- +goose StatementEnd

CREATE TABLE user_search_keys (
    n  INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE
) STRICT;
CREATE VIRTUAL TABLE user_search USING fts5(email, display_name, tokenize = 'trigram');
INSERT INTO user_search_keys (id) SELECT id FROM users ORDER BY id;
INSERT INTO user_search (rowid, email, display_name)
SELECT k.n, u.email, u.display_name FROM user_search_keys k JOIN users u ON u.id = k.id;

-- +goose StatementBegin
CREATE TRIGGER user_search_insert AFTER INSERT ON users
BEGIN
    INSERT INTO user_search_keys (id) VALUES (NEW.id);
    INSERT INTO user_search (rowid, email, display_name)
    VALUES ((SELECT n FROM user_search_keys WHERE id = NEW.id), NEW.email, NEW.display_name);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER user_search_update AFTER UPDATE OF email, display_name ON users
WHEN OLD.email IS NOT NEW.email OR OLD.display_name IS NOT NEW.display_name
BEGIN
    UPDATE user_search SET email = NEW.email, display_name = NEW.display_name
    WHERE rowid = (SELECT n FROM user_search_keys WHERE id = NEW.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER user_search_delete AFTER DELETE ON users
BEGIN
    DELETE FROM user_search WHERE rowid = (SELECT n FROM user_search_keys WHERE id = OLD.id);
    DELETE FROM user_search_keys WHERE id = OLD.id;
END;
-- +goose StatementEnd

-- Short queries: the start of a column (lower() in SQLite folds ASCII).
CREATE INDEX hosts_name_prefix ON hosts (lower(name)) WHERE deleted_at IS NULL;
CREATE INDEX hosts_id_prefix ON hosts (lower(id)) WHERE deleted_at IS NULL;
CREATE INDEX hosts_public_ip_prefix ON hosts (lower(public_ip)) WHERE deleted_at IS NULL;
CREATE INDEX users_email_prefix ON users (lower(email));
CREATE INDEX users_display_name_prefix ON users (lower(display_name));

-- Orders of the admin lists that an index serves cheaply (as on
-- PostgreSQL): columns that rarely change.
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
DROP TRIGGER user_search_delete;
DROP TRIGGER user_search_update;
DROP TRIGGER user_search_insert;
DROP TABLE user_search;
DROP TABLE user_search_keys;
DROP TRIGGER host_search_delete;
DROP TRIGGER host_search_soft_delete;
DROP TRIGGER host_search_update;
DROP TRIGGER host_search_insert;
DROP TABLE host_search;
DROP TABLE host_search_keys;
