-- Ingest (P1): what the batched writes need beyond 0001.
-- The last observed heartbeat gaps (seconds, newest last, at most 8): their
-- median, clamped to 5 s … 600 s, is panel_hosts.interval_s. Kept in the
-- database so that replicas sharing the queue group observe the true gap.
ALTER TABLE panel_hosts ADD COLUMN recent_gaps double precision[] NOT NULL DEFAULT '{}';
-- The agent timestamp of the newest status event applied to the row (its
-- crash_count and last_message); updated_at covers heartbeats too.
ALTER TABLE panel_instances ADD COLUMN last_event_at timestamptz;
-- Age pruning of the bounded histories.
CREATE INDEX panel_host_samples_at ON panel_host_samples (at);
CREATE INDEX panel_instance_events_at ON panel_instance_events (at);
-- Every heartbeat rewrites its host's row (and instance rows on a change):
-- room on each page keeps those updates HOT (no index writes, no bloat).
ALTER TABLE panel_hosts SET (fillfactor = 50);
ALTER TABLE panel_instances SET (fillfactor = 70);
-- When panel_hosts.heartbeat was last stored: the whole heartbeat (jsonb)
-- is rewritten at most once per sample bucket, its columns every time.
ALTER TABLE panel_hosts ADD COLUMN heartbeat_at timestamptz NOT NULL DEFAULT '-infinity';
-- A hash of the last instance reports written (ids, states, pids, games,
-- labels) and their agent timestamp: a heartbeat that changes none of them
-- writes no instance row until the telemetry is a sample bucket old.
ALTER TABLE panel_hosts ADD COLUMN instances_sig bigint;
ALTER TABLE panel_hosts ADD COLUMN instances_at timestamptz NOT NULL DEFAULT '-infinity';
