-- The seed's friends table; created_at keeps each list in the order it was built.
CREATE TABLE friends
(
    owner_hash  BIGINT      NOT NULL,
    friend_hash BIGINT      NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (owner_hash, friend_hash)
);
CREATE INDEX idx_friends_reverse ON friends (friend_hash);
