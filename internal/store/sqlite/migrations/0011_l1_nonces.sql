-- The replay memory of POST /gateway (package l1gate): the nonce of every
-- accepted L1 request, per host (scope), until its ts is stale
-- (l1.Request.NonceExpiry). The same schema as the PostgreSQL migration of
-- this name; expires_at is TimeFormat text, whose order is time order.

-- +goose Up
CREATE TABLE l1_nonces (
    scope      TEXT NOT NULL,
    nonce      TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (scope, nonce)
) STRICT, WITHOUT ROWID;
CREATE INDEX l1_nonces_expiry ON l1_nonces (expires_at);

-- +goose Down
DROP TABLE l1_nonces;
