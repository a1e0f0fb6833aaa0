-- GET /v1/user/hosts pages one user's hosts by name, last seen or, within
-- a status, newest first (docs/hosts.md, "Listing hosts"). Newest first
-- over all statuses is hosts_owner_newest (0002). NULL last_seen_at sorts
-- first ascending (NULLS FIRST), as SQLite's default does, so both engines
-- give the same order and a backward scan serves the descending one.
--
-- host_counts keeps each user's number of undeleted hosts, so the total of
-- an unfiltered page is one row rather than a count of the user's whole
-- fleet. Triggers keep it, so no write path can forget it: a host counts
-- from its insert until deleted_at is first set. The same as the SQLite
-- migration of this name.

-- +goose Up
CREATE INDEX hosts_owner_name ON hosts (user_id, name, id) WHERE deleted_at IS NULL;
CREATE INDEX hosts_owner_last_seen ON hosts (user_id, last_seen_at ASC NULLS FIRST, id) WHERE deleted_at IS NULL;
CREATE INDEX hosts_owner_status_newest ON hosts (user_id, status, created_at DESC, id DESC) WHERE deleted_at IS NULL;

CREATE TABLE host_counts (
    user_id text PRIMARY KEY REFERENCES users (id),
    n       bigint NOT NULL
);
INSERT INTO host_counts (user_id, n)
SELECT user_id, count(*) FROM hosts WHERE deleted_at IS NULL GROUP BY user_id;

-- +goose StatementBegin
CREATE FUNCTION host_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO host_counts (user_id, n) VALUES (NEW.user_id, 1)
        ON CONFLICT (user_id) DO UPDATE SET n = host_counts.n + 1;
    ELSE
        UPDATE host_counts SET n = n - 1 WHERE user_id = NEW.user_id;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER host_counts_insert AFTER INSERT ON hosts
    FOR EACH ROW WHEN (NEW.deleted_at IS NULL) EXECUTE FUNCTION host_counts_keep();
CREATE TRIGGER host_counts_delete AFTER UPDATE OF deleted_at ON hosts
    FOR EACH ROW WHEN (OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL) EXECUTE FUNCTION host_counts_keep();

-- +goose Down
DROP TRIGGER host_counts_delete ON hosts;
DROP TRIGGER host_counts_insert ON hosts;
DROP FUNCTION host_counts_keep();
DROP TABLE host_counts;
DROP INDEX hosts_owner_status_newest;
DROP INDEX hosts_owner_last_seen;
DROP INDEX hosts_owner_name;
