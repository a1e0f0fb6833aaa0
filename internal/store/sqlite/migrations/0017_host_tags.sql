-- Host tags and saved filters (docs/hosts.md, "Tags and saved filters").
--
-- host_tags holds each undeleted host's labels key=value, at most 32 a
-- host (the service's rule); a host's tags go with it when it is deleted.
-- user_id and created_at are the host's owner and creation time, copied,
-- so that a tag lookup over one user's fleet is one range of
-- host_tags_lookup: (user_id, key) for "has the key", (user_id, key,
-- value) for key=value, the host ids read from the index alone, and for
-- key=value already in the order a job's selection takes (created_at,
-- id), without a read of hosts. host_tags_any_owner serves the admin list's tag filter
-- over every user's hosts. The primary key reads a page's tags by host.
--
-- saved_filters keeps each user's named host queries (JSON of
-- hosts.FilterQuery), names unique per user. The same schema as the
-- PostgreSQL migration of this name.

-- +goose Up
CREATE TABLE host_tags (
    host_id    TEXT NOT NULL REFERENCES hosts (id),
    user_id    TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (host_id, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX host_tags_lookup ON host_tags (user_id, key, value, created_at, host_id);
CREATE INDEX host_tags_any_owner ON host_tags (key, value, host_id);

CREATE TABLE saved_filters (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id),
    name       TEXT NOT NULL,
    query      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (user_id, name)
) STRICT;

-- +goose Down
DROP TABLE saved_filters;
DROP TABLE host_tags;
