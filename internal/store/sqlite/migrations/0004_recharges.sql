-- Recharge orders. An order is paid at most once: the payment webhook's
-- UPDATE … WHERE status IN ('pending', 'expired') and the credit of the
-- balance with its billing event share one transaction, so however often
-- and however concurrently a notification arrives, it credits once.
-- The same schema as the PostgreSQL migration of this name. Amounts are in fen (CNY cents); credited units = fen × 1000 (1 CNY =
-- 100 tokens).

-- +goose Up
CREATE TABLE recharges (
    id          TEXT PRIMARY KEY,
    order_no    TEXT NOT NULL UNIQUE,
    user_id     TEXT NOT NULL REFERENCES users (id),
    amount_fen  INTEGER NOT NULL CHECK (amount_fen > 0),
    units       INTEGER NOT NULL CHECK (units > 0),
    status      TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'refunded', 'expired')),
    provider    TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    paid_at     TEXT,
    refunded_at TEXT
) STRICT;
CREATE INDEX recharges_user_newest ON recharges (user_id, created_at DESC, id DESC);
CREATE INDEX recharges_status_newest ON recharges (status, created_at DESC, id DESC);

-- +goose Down
DROP TABLE recharges;
