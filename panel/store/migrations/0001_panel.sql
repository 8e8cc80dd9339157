-- The panel's schema: operators, licenses, the fleet's latest state, bounded
-- history, and the audit log. Times are timestamptz; ids of the wire protocol
-- are text.

CREATE TABLE panel_users (
    id            bigserial PRIMARY KEY,
    name          text NOT NULL UNIQUE,
    password_hash text NOT NULL,              -- argon2id, PHC string form
    role          text NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
    disabled      boolean NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE panel_sessions (
    token_hash  bytea PRIMARY KEY,            -- sha256 of the cookie's token; the token itself is never stored
    user_id     bigint NOT NULL REFERENCES panel_users(id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    last_seen   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX panel_sessions_user ON panel_sessions (user_id);

CREATE TABLE panel_licenses (
    id         text PRIMARY KEY,              -- the wire protocol's license_id: one agent (host)
    label      text NOT NULL DEFAULT '',
    disabled   boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE panel_grants (
    user_id    bigint NOT NULL REFERENCES panel_users(id) ON DELETE CASCADE,
    license_id text NOT NULL REFERENCES panel_licenses(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, license_id)
);

-- Heartbeats from licenses nobody created: counted and shown to admins.
CREATE TABLE panel_unknown_licenses (
    license_id text PRIMARY KEY,
    first_seen timestamptz NOT NULL,
    last_seen  timestamptz NOT NULL,
    messages   bigint NOT NULL DEFAULT 0,
    hostname   text NOT NULL DEFAULT ''
);

-- One row per license that has sent a heartbeat: the latest state.
CREATE TABLE panel_hosts (
    license_id      text PRIMARY KEY REFERENCES panel_licenses(id) ON DELETE CASCADE,
    hostname        text NOT NULL DEFAULT '',
    agent_version   text NOT NULL DEFAULT '',
    agent_commit    text NOT NULL DEFAULT '',
    os              text NOT NULL DEFAULT '',
    arch            text NOT NULL DEFAULT '',
    cpu_percent     double precision,          -- NULL: not measured
    cpu_cores       integer,
    mem_total_mb    bigint,
    mem_used_mb     bigint,
    disk_total_mb   bigint,                    -- sum over the heartbeat's disks
    disk_free_mb    bigint,
    heartbeat       jsonb NOT NULL,            -- the last heartbeat as received
    first_seen      timestamptz NOT NULL,
    last_heartbeat  timestamptz NOT NULL,      -- when the panel received it
    interval_s      double precision NOT NULL DEFAULT 60, -- observed heartbeat interval
    going_offline   timestamptz                -- set by the beacon, cleared by the next heartbeat
);

-- One row per instance an agent reports: the latest state.
CREATE TABLE panel_instances (
    license_id     text NOT NULL REFERENCES panel_licenses(id) ON DELETE CASCADE,
    instance_id    text NOT NULL,
    game           text NOT NULL DEFAULT '',
    label          text NOT NULL DEFAULT '',
    state          text NOT NULL,
    pid            integer,
    uptime_s       bigint NOT NULL DEFAULT 0,
    crash_count    integer NOT NULL DEFAULT 0,
    cpu_percent    double precision,
    rss_mb         bigint,
    state_since    timestamptz NOT NULL,       -- when state last changed
    updated_at     timestamptz NOT NULL,
    last_message   text NOT NULL DEFAULT '',   -- the last status event's message
    PRIMARY KEY (license_id, instance_id)
);

-- Bounded host telemetry history for charts (ingest prunes it).
CREATE TABLE panel_host_samples (
    license_id   text NOT NULL REFERENCES panel_licenses(id) ON DELETE CASCADE,
    at           timestamptz NOT NULL,
    cpu_percent  double precision,
    mem_used_mb  bigint,
    mem_total_mb bigint,
    disk_free_mb bigint,
    disk_total_mb bigint,
    PRIMARY KEY (license_id, at)
);

-- Status events: each instance's timeline (bounded retention; ingest prunes it).
CREATE TABLE panel_instance_events (
    id          bigserial PRIMARY KEY,
    license_id  text NOT NULL REFERENCES panel_licenses(id) ON DELETE CASCADE,
    instance_id text NOT NULL,
    at          timestamptz NOT NULL,          -- the agent's timestamp
    state       text NOT NULL,
    exit_code   integer,
    pid         integer,
    crash_count integer NOT NULL DEFAULT 0,
    message     text NOT NULL DEFAULT ''
);
CREATE INDEX panel_instance_events_instance ON panel_instance_events (license_id, instance_id, at DESC);
-- Redelivered events (a NATS reconnect, two replicas) are written once.
CREATE UNIQUE INDEX panel_instance_events_dedup ON panel_instance_events (license_id, instance_id, at, state);

-- Who did what to which host or instance, when, and with what result.
CREATE TABLE panel_audit (
    id          bigserial PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    user_id     bigint REFERENCES panel_users(id) ON DELETE SET NULL,
    user_name   text NOT NULL,                -- kept when the user is deleted; '' for anonymous
    remote_addr text NOT NULL DEFAULT '',
    action      text NOT NULL,                -- e.g. instance.stop, files.save, user.add, login
    license_id  text NOT NULL DEFAULT '',
    instance_id text NOT NULL DEFAULT '',
    target      text NOT NULL DEFAULT '',     -- e.g. a file path or a user name
    result      text NOT NULL CHECK (result IN ('ok', 'denied', 'error')),
    detail      text NOT NULL DEFAULT ''
);
CREATE INDEX panel_audit_at ON panel_audit (at DESC);
CREATE INDEX panel_audit_license ON panel_audit (license_id, at DESC);
