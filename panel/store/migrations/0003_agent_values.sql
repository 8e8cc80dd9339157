-- Values from agents are data, not truth: what the last heartbeat reported
-- that cannot be (clamped when written), one note per line, and how far the
-- agent's clock was from the panel's when beyond store.MaxClockSkew (0:
-- within it).
ALTER TABLE panel_hosts ADD COLUMN impossible text NOT NULL DEFAULT '';
ALTER TABLE panel_hosts ADD COLUMN clock_skew_ms bigint NOT NULL DEFAULT 0;
