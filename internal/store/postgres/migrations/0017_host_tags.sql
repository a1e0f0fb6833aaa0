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
-- SQLite migration of this name.

-- +goose Up
CREATE TABLE host_tags (
    host_id    text NOT NULL REFERENCES hosts (id),
    user_id    text NOT NULL,
    key        text NOT NULL,
    value      text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (host_id, key)
);
CREATE INDEX host_tags_lookup ON host_tags (user_id, key, value, created_at, host_id);
CREATE INDEX host_tags_any_owner ON host_tags (key, value, host_id);

CREATE TABLE saved_filters (
    id         text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users (id),
    name       text NOT NULL,
    query      text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (user_id, name)
);

-- +goose Down
DROP TABLE saved_filters;
DROP TABLE host_tags;
