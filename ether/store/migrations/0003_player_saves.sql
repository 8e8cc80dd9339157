-- The seed's player_saves table.
CREATE TABLE player_saves
(
    user_hash  BIGINT PRIMARY KEY,
    save_data  BYTEA       NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
