-- Beyond the seed: a player's private chat mode (0 on, 1 friends, 2 off),
-- kept so a session started by PlayerLogin (which carries no mode) knows it.
CREATE TABLE player_settings
(
    user_hash    BIGINT PRIMARY KEY,
    private_mode SMALLINT    NOT NULL DEFAULT 0 CHECK (private_mode BETWEEN 0 AND 2),
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
