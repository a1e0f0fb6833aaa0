-- POST /gateway?bid= finds hosts by bid alone (bid is unique per user, not
-- globally; package l1gate). Without this index every legacy request
-- would scan the hosts table.

-- +goose Up
CREATE INDEX hosts_bid_live ON hosts (bid) WHERE deleted_at IS NULL;

-- +goose Down
DROP INDEX hosts_bid_live;
