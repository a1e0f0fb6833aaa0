-- Recharge orders. An order is paid at most once: the payment webhook's
-- UPDATE … WHERE status IN ('pending', 'expired') and the credit of the
-- balance with its billing event share one transaction, so however often
-- and however concurrently a notification arrives, it credits once.
-- Amounts are in fen (CNY cents); credited units = fen × 1000 (1 CNY =
-- 100 tokens).

-- +goose Up
CREATE TABLE recharges (
    id          text PRIMARY KEY,
    order_no    text NOT NULL UNIQUE,
    user_id     text NOT NULL REFERENCES users (id),
    amount_fen  bigint NOT NULL CHECK (amount_fen > 0),
    units       bigint NOT NULL CHECK (units > 0),
    status      text NOT NULL CHECK (status IN ('pending', 'paid', 'refunded', 'expired')),
    provider    text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    paid_at     timestamptz,
    refunded_at timestamptz
);
CREATE INDEX recharges_user_newest ON recharges (user_id, created_at DESC, id DESC);
CREATE INDEX recharges_status_newest ON recharges (status, created_at DESC, id DESC);

-- +goose Down
DROP TABLE recharges;
