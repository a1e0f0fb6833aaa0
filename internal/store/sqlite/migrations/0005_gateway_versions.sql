-- Published agent versions. A yanked version keeps its row (yanked_at
-- set) so that hosts running it can still be explained. The same schema
-- as the PostgreSQL migration of this name.

-- +goose Up
CREATE TABLE gateway_versions (
    id                     TEXT PRIMARY KEY,
    version                TEXT NOT NULL UNIQUE,
    channel                TEXT NOT NULL CHECK (channel IN ('stable', 'beta', 'canary')),
    exe_url                TEXT NOT NULL,
    exe_sha256             TEXT NOT NULL,
    exe_size_bytes         INTEGER NOT NULL CHECK (exe_size_bytes > 0),
    min_supported_protocol INTEGER NOT NULL,
    changelog              TEXT NOT NULL DEFAULT '',
    released_at            TEXT NOT NULL,
    yanked_at              TEXT
) STRICT;
CREATE INDEX gateway_versions_newest ON gateway_versions (released_at DESC, id DESC);

-- +goose Down
DROP TABLE gateway_versions;
