-- The admin dashboard (docs/admin-console-api.md).
--
-- fleet_samples keeps one row a minute of the fleet's live figures: agents
-- connected (coordination's presence) and the webhook queue. Every hub
-- instance samples once a minute and upserts the row of that minute, so
-- however many instances run there is one row a minute (the last writer's
-- figures). The sampler deletes rows older than the series reach.
--
-- The series read the ledger and the recharges by time: billing events by
-- billing_events_kind_time (0003); paid and refunded recharges by the two
-- partial indexes below. The dead-letter count, the hosts' grouped count by
-- agent version and an admin's list of a user's keys (revoked ones too)
-- have an index each. The same as the SQLite migration of this name.

-- +goose Up
CREATE TABLE fleet_samples (
    minute           timestamptz PRIMARY KEY,
    online_hosts     bigint NOT NULL CHECK (online_hosts >= 0),
    webhooks_pending bigint NOT NULL CHECK (webhooks_pending >= 0),
    webhooks_dead    bigint NOT NULL CHECK (webhooks_dead >= 0),
    sampled_at       timestamptz NOT NULL
);

CREATE INDEX recharges_paid_time ON recharges (paid_at) WHERE paid_at IS NOT NULL;
CREATE INDEX recharges_refunded_time ON recharges (refunded_at) WHERE refunded_at IS NOT NULL;
CREATE INDEX webhook_deliveries_dead ON webhook_deliveries (seq) WHERE status = 'dead_letter';
CREATE INDEX hosts_agent_version_status ON hosts (installed_version, status) WHERE deleted_at IS NULL;
CREATE INDEX api_keys_owner_all ON api_keys (user_id, created_at DESC, id DESC);

-- +goose Down
DROP INDEX api_keys_owner_all;
DROP INDEX hosts_agent_version_status;
DROP INDEX webhook_deliveries_dead;
DROP INDEX recharges_refunded_time;
DROP INDEX recharges_paid_time;
DROP TABLE fleet_samples;
