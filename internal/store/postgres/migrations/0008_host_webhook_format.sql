-- The webhook format each host's L1 configuration changes are delivered in
-- (package webhooks): A (spec 6.2, the default) or B (spec 6.3). The same
-- column as the SQLite migration of this name.

-- +goose Up
ALTER TABLE hosts ADD COLUMN webhook_format text NOT NULL DEFAULT 'A' CHECK (webhook_format IN ('A', 'B'));

-- +goose Down
ALTER TABLE hosts DROP COLUMN webhook_format;
