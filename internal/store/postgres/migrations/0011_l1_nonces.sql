-- The replay memory of POST /gateway (package l1gate): the nonce of every
-- accepted L1 request, per host (scope), until its ts is stale
-- (l1.Request.NonceExpiry). It is in the database, not in coordination, so
-- that a captured request replayed after a hub restart or a Redis flush is
-- still refused. A check is one INSERT … ON CONFLICT DO UPDATE that takes
-- over only an expired row; the hub deletes expired rows every minute, in
-- batches, by expires_at.

-- +goose Up
CREATE TABLE l1_nonces (
    scope      text NOT NULL,
    nonce      text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (scope, nonce)
);
CREATE INDEX l1_nonces_expiry ON l1_nonces (expires_at);

-- +goose Down
DROP TABLE l1_nonces;
