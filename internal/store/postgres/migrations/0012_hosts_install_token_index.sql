-- GET /install/{install_token}.ps1|.sh (the one-line install) finds the
-- host by its install token alone, before any credential is known. Only
-- hosts with an unconsumed token are indexed.

-- +goose Up
CREATE INDEX hosts_install_token ON hosts (install_token_hash) WHERE install_token_hash IS NOT NULL;

-- +goose Down
DROP INDEX hosts_install_token;
