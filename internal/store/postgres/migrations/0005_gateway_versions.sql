-- Published agent versions. A yanked version keeps its row (yanked_at
-- set) so that hosts running it can still be explained.

-- +goose Up
CREATE TABLE gateway_versions (
    id                     text PRIMARY KEY,
    version                text NOT NULL UNIQUE,
    channel                text NOT NULL CHECK (channel IN ('stable', 'beta', 'canary')),
    exe_url                text NOT NULL,
    exe_sha256             text NOT NULL,
    exe_size_bytes         bigint NOT NULL CHECK (exe_size_bytes > 0),
    min_supported_protocol integer NOT NULL,
    changelog              text NOT NULL DEFAULT '',
    released_at            timestamptz NOT NULL,
    yanked_at              timestamptz
);
CREATE INDEX gateway_versions_newest ON gateway_versions (released_at DESC, id DESC);

-- +goose Down
DROP TABLE gateway_versions;
