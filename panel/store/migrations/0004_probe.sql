-- The inbound reachability probe (docs/probe.md) and the Servers page's
-- build columns. From heartbeats (data, not truth: checked when written):
-- where players reach a host (its [agent] public_address; '' none), each
-- instance's declared ports (a JSON array of {name, protocol, port}), its
-- installed build and the newest build its last update_check saw ('' when
-- unknown). From the panel's own probe: the last inbound ProbeReport of an
-- instance, when it ran, its verdict in a word and the player count its
-- A2S answer gave (NULL: none).
ALTER TABLE panel_hosts ADD COLUMN public_address text NOT NULL DEFAULT '';
ALTER TABLE panel_instances ADD COLUMN ports jsonb NOT NULL DEFAULT '[]';
ALTER TABLE panel_instances ADD COLUMN build text NOT NULL DEFAULT '';
ALTER TABLE panel_instances ADD COLUMN available_build text NOT NULL DEFAULT '';
ALTER TABLE panel_instances ADD COLUMN probe jsonb;
ALTER TABLE panel_instances ADD COLUMN probe_at timestamptz;
ALTER TABLE panel_instances ADD COLUMN probe_verdict text NOT NULL DEFAULT '';
ALTER TABLE panel_instances ADD COLUMN probe_players int4;
