package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// instanceColumns reads an instance row. Uptime, CPU and memory are at
// most one sample bucket old (heartbeats rewrite an unchanged instance's
// row only that often); state, pid, game and label are current. The
// declared ports (jsonb, costly to decode by the thousand) are read by
// Instance only: the lists do not show them.
const instanceColumns = `license_id, instance_id, game, label, state, coalesce(pid, 0), uptime_s, crash_count,
	cpu_percent, rss_mb, state_since, updated_at, last_message, build, available_build, probe_at, probe_verdict,
	probe_players`

// scanInstance scans instanceColumns, then the ports when withPorts.
func scanInstance(row pgx.Row, withPorts bool) (Instance, error) {
	var in Instance
	var state string
	var probeAt *time.Time
	var players *int32
	dest := []any{&in.License, &in.ID, &in.Game, &in.Label, &state, &in.PID, &in.UptimeSeconds, &in.CrashCount,
		&in.CPUPercent, &in.RSSMB, &in.StateSince, &in.UpdatedAt, &in.LastMessage, &in.Build, &in.AvailableBuild,
		&probeAt, &in.ProbeVerdict, &players}
	if withPorts {
		dest = append(dest, &in.Ports)
	}
	err := row.Scan(dest...)
	in.State, in.ProbeAt = stateOf(state), deref(probeAt)
	if players != nil {
		in.ProbePlayers = new(int(*players))
	}
	return in, err
}

// Instances lists a license's instances ordered by id (none for an
// unknown license).
func (s *Store) Instances(ctx context.Context, license string) ([]Instance, error) {
	return queryRows(ctx, s.pool, "list instances of "+license, func(r pgx.CollectableRow) (Instance, error) { return scanInstance(r, false) },
		`SELECT `+instanceColumns+` FROM panel_instances WHERE license_id = $1 ORDER BY instance_id`, license)
}

// Instance returns one instance's latest state; ErrNotFound when the
// license has reported no such instance.
func (s *Store) Instance(ctx context.Context, license, id string) (Instance, error) {
	in, err := scanInstance(s.pool.QueryRow(ctx, `SELECT `+instanceColumns+`, ports FROM panel_instances
		WHERE license_id = $1 AND instance_id = $2`, license, id), true)
	if errors.Is(err, pgx.ErrNoRows) {
		return Instance{}, fmt.Errorf("instance %s/%s: %w", license, id, ErrNotFound)
	}
	if err != nil {
		return Instance{}, fmt.Errorf("read instance %s/%s: %w", license, id, err)
	}
	return in, nil
}

// InstancesOf lists the instances of the enabled licenses among licenses
// (nil: every enabled license; empty non-nil: none), ordered by license
// then id: the fleet-wide Servers page reads them in one query.
func (s *Store) InstancesOf(ctx context.Context, licenses []string) ([]Instance, error) {
	if licenses != nil && len(licenses) == 0 {
		return nil, nil
	}
	return queryRows(ctx, s.pool, "list instances", func(r pgx.CollectableRow) (Instance, error) { return scanInstance(r, false) },
		`SELECT `+instanceColumns+` FROM panel_instances WHERE license_id IN (SELECT id FROM panel_licenses
		WHERE NOT disabled AND ($1::text[] IS NULL OR id = ANY($1))) ORDER BY license_id, instance_id`, licenses)
}
