package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/agent/wire"
)

// int4 is an optional integer column value: nil for zero.
func int4(v int) *int32 {
	if v == 0 {
		return nil
	}
	n := int32(min(max(v, math.MinInt32), math.MaxInt32))
	return &n
}

// instanceHeartbeatUpsert applies each heartbeat's instance reports that
// are newer than the row (agent clock) and either change it (state, pid,
// game, label, builds or ports) or refresh telemetry older than $11 (the
// sample bucket):
// an unchanged instance costs a lookup, no row write or lock, on most
// heartbeats. Crash counts and messages come from status events only.
// state_since moves when the state changes.
const instanceHeartbeatUpsert = `INSERT INTO panel_instances AS i (license_id, instance_id, game, label, state, pid,
	uptime_s, cpu_percent, rss_mb, state_since, updated_at, ports, build, available_build)
SELECT l, id, u.game, u.label, u.state, u.pid, up, cpu, rss, at, at, u.ports::jsonb, u.build, u.avail
	FROM unnest($1::text[], $2::text[], $3::text[], $4::text[],
	$5::text[], $6::int4[], $7::int8[], $8::float8[], $9::int8[], $10::timestamptz[], $12::text[], $13::text[], $14::text[])
	AS u(l, id, game, label, state, pid, up, cpu, rss, at, ports, build, avail)
	LEFT JOIN panel_instances o ON o.license_id = u.l AND o.instance_id = u.id
WHERE o.license_id IS NULL OR (o.updated_at <= u.at AND (o.updated_at <= u.at - $11::interval
	OR (o.state, o.pid, o.game, o.label, o.build, o.available_build, o.ports)
		IS DISTINCT FROM (u.state, u.pid, u.game, u.label, u.build, u.avail, u.ports::jsonb)))
ON CONFLICT (license_id, instance_id) DO UPDATE SET game = EXCLUDED.game, label = EXCLUDED.label,
	state = EXCLUDED.state, pid = EXCLUDED.pid, uptime_s = EXCLUDED.uptime_s, cpu_percent = EXCLUDED.cpu_percent,
	rss_mb = EXCLUDED.rss_mb, updated_at = EXCLUDED.updated_at, ports = EXCLUDED.ports, build = EXCLUDED.build,
	available_build = EXCLUDED.available_build,
	state_since = CASE WHEN i.state = EXCLUDED.state THEN i.state_since ELSE EXCLUDED.state_since END
WHERE i.updated_at <= EXCLUDED.updated_at`

func writeHeartbeatInstances(ctx context.Context, tx pgx.Tx, b *Batch, p *hostPlan) error {
	var ls, ids, games, labels, states []string
	var pids []*int32
	var ups []int64
	var cpus []*float64
	var rss []*int64
	var ats []time.Time
	var ports, builds, avails []string
	for _, r := range b.Heartbeats {
		if !p.due[r.License] {
			continue
		}
		at := r.At()
		for _, rep := range sortedReports(r.Heartbeat.Instances) {
			in := InstanceFromReport(Instance{License: r.License}, &r, rep)
			ls, ids, games, labels = append(ls, r.License), append(ids, in.ID), append(games, in.Game), append(labels, in.Label)
			states, pids, ups = append(states, pgText(string(in.State))), append(pids, int4(in.PID)), append(ups, in.UptimeSeconds)
			cpus, rss, ats = append(cpus, in.CPUPercent), append(rss, in.RSSMB), append(ats, at)
			ports, builds, avails = append(ports, portsJSON(in.Ports)), append(builds, pgText(in.Build)), append(avails, pgText(in.AvailableBuild))
		}
	}
	if len(ls) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, instanceHeartbeatUpsert, ls, ids, games, labels, states, pids, ups, cpus, rss, ats, b.SampleEvery, ports, builds, avails); err != nil {
		return fmt.Errorf("write instances: %w", err)
	}
	return nil
}

// sortedReports is reports in id order without duplicate ids (ingest
// rejects those; this keeps one statement from touching a row twice).
func sortedReports(reports []wire.InstanceReport) []wire.InstanceReport {
	out := make([]wire.InstanceReport, 0, len(reports))
	seen := make(map[string]bool, len(reports))
	for _, r := range reports {
		if !seen[r.ID] {
			seen[r.ID] = true
			out = append(out, r)
		}
	}
	sortReports(out)
	return out
}

// deleteGoneInstances removes instances a host no longer reports (taken out
// of its config), unless something newer than the heartbeat updated them.
func deleteGoneInstances(ctx context.Context, tx pgx.Tx, b *Batch, p *hostPlan) error {
	var hostIDs, reported []string
	var hostAts []time.Time
	for _, r := range b.Heartbeats {
		if !p.due[r.License] {
			continue // its instances are as written: none gone
		}
		ids := make([]string, len(r.Heartbeat.Instances))
		for j, in := range r.Heartbeat.Instances {
			ids[j] = in.ID
		}
		// Instance ids are [a-z0-9_-]: a comma joins them unambiguously.
		hostIDs, hostAts, reported = append(hostIDs, r.License), append(hostAts, r.At()), append(reported, strings.Join(ids, ","))
	}
	if len(hostIDs) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `DELETE FROM panel_instances i USING unnest($1::text[], $2::timestamptz[], $3::text[]) AS h(l, at, ids)
		WHERE i.license_id = h.l AND i.updated_at < h.at AND NOT (i.instance_id = ANY(string_to_array(h.ids, ',')))`,
		hostIDs, hostAts, reported)
	if err != nil {
		return fmt.Errorf("delete instances no longer reported: %w", err)
	}
	return nil
}

func sortReports(rs []wire.InstanceReport) {
	slices.SortFunc(rs, func(a, b wire.InstanceReport) int { return strings.Compare(a.ID, b.ID) })
}

// portsJSON is an instance's declared ports as the ports column holds them
// (a JSON array; [] for none).
func portsJSON(ports []wire.BoundPortInfo) string {
	if len(ports) == 0 {
		return "[]"
	}
	b, err := json.Marshal(ports)
	if err != nil { // cannot happen: strings and ints
		return "[]"
	}
	return string(b)
}
