-- Player accounts of the world servers. user37 is the name's name37 value
-- (world-client.md), which is below 2^63 for every valid name.
CREATE TABLE world_accounts (
    user37        BIGINT PRIMARY KEY CHECK (user37 > 0),
    name          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_login_at TIMESTAMPTZ
);
