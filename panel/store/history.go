package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/agent/wire"
)

func stateOf(s string) wire.State { return wire.State(s) }

// Timeline returns an instance's newest status events, newest first, at
// most limit (limit ≤ 0: DefaultTimeline).
func (s *Store) Timeline(ctx context.Context, license, id string, limit int) ([]Event, error) {
	if limit <= 0 {
		limit = DefaultTimeline
	}
	return queryRows(ctx, s.pool, "read timeline of "+license+"/"+id, scanEvent,
		`SELECT id, license_id, instance_id, at, state, exit_code, coalesce(pid, 0), crash_count, message
		FROM panel_instance_events WHERE license_id = $1 AND instance_id = $2 ORDER BY at DESC, id DESC LIMIT $3`,
		license, id, limit)
}

func scanEvent(r pgx.CollectableRow) (Event, error) {
	var e Event
	var state string
	err := r.Scan(&e.ID, &e.License, &e.Instance, &e.At, &state, &e.ExitCode, &e.PID, &e.CrashCount, &e.Message)
	e.State = stateOf(state)
	return e, err
}

// DefaultTimeline is how many events Timeline returns without a limit.
const DefaultTimeline = 100

// Samples returns a host's telemetry samples taken at or after since,
// oldest first.
func (s *Store) Samples(ctx context.Context, license string, since time.Time) ([]Sample, error) {
	return queryRows(ctx, s.pool, "read samples of "+license, scanSample,
		`SELECT at, cpu_percent, mem_used_mb, mem_total_mb, disk_free_mb, disk_total_mb
		FROM panel_host_samples WHERE license_id = $1 AND at >= $2 ORDER BY at`, license, since)
}

func scanSample(r pgx.CollectableRow) (Sample, error) {
	var sm Sample
	err := r.Scan(&sm.At, &sm.CPUPercent, &sm.MemUsedMB, &sm.MemTotalMB, &sm.DiskFreeMB, &sm.DiskTotalMB)
	return sm, err
}
