-- The seed's ignores table; created_at keeps each list in the order it was built.
CREATE TABLE ignores
(
    owner_hash  BIGINT      NOT NULL,
    ignore_hash BIGINT      NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (owner_hash, ignore_hash)
);
