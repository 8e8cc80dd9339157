package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// maxGaps is how many recent heartbeat gaps a host keeps for its interval.
const maxGaps = 8

// writeBeacons marks hosts going offline (a beacon older than the host's
// last heartbeat is harmless: HostOnline ignores it).
func writeBeacons(ctx context.Context, tx pgx.Tx, b *Batch) error {
	if len(b.Beacons) == 0 {
		return nil
	}
	ids, ats := make([]string, len(b.Beacons)), make([]time.Time, len(b.Beacons))
	for i, bc := range b.Beacons {
		ids[i], ats[i] = bc.License, bc.At
	}
	_, err := tx.Exec(ctx, `UPDATE panel_hosts h SET going_offline = u.at
		FROM unnest($1::text[], $2::timestamptz[]) AS u(license_id, at)
		WHERE h.license_id = u.license_id AND (h.going_offline IS NULL OR h.going_offline < u.at)`, ids, ats)
	if err != nil {
		return fmt.Errorf("mark going offline: %w", err)
	}
	return nil
}

// hostUpsert writes each host's latest state. The new gap since the last
// heartbeat joins recent_gaps (unless a going_offline beacon came between:
// that gap is a restart, not the interval); interval_s is their median,
// clamped. A beacon older than this heartbeat is cleared.
var hostUpsert = fmt.Sprintf(`WITH u AS (
	SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::int4[],
		$9::int8[], $10::int8[], $11::int8[], $12::int8[], $13::jsonb[], $14::timestamptz[])
	AS u(license_id, hostname, agent_version, agent_commit, os, arch, cpu_percent, cpu_cores,
		mem_total_mb, mem_used_mb, disk_total_mb, disk_free_mb, heartbeat, received))
INSERT INTO panel_hosts AS h (license_id, hostname, agent_version, agent_commit, os, arch, cpu_percent, cpu_cores,
	mem_total_mb, mem_used_mb, disk_total_mb, disk_free_mb, heartbeat, first_seen, last_heartbeat)
SELECT license_id, hostname, agent_version, agent_commit, os, arch, cpu_percent, cpu_cores,
	mem_total_mb, mem_used_mb, disk_total_mb, disk_free_mb, heartbeat, received, received FROM u
ON CONFLICT (license_id) DO UPDATE SET hostname = EXCLUDED.hostname, agent_version = EXCLUDED.agent_version,
	agent_commit = EXCLUDED.agent_commit, os = EXCLUDED.os, arch = EXCLUDED.arch, cpu_percent = EXCLUDED.cpu_percent,
	cpu_cores = EXCLUDED.cpu_cores, mem_total_mb = EXCLUDED.mem_total_mb, mem_used_mb = EXCLUDED.mem_used_mb,
	disk_total_mb = EXCLUDED.disk_total_mb, disk_free_mb = EXCLUDED.disk_free_mb, heartbeat = EXCLUDED.heartbeat,
	last_heartbeat = EXCLUDED.last_heartbeat,
	going_offline = CASE WHEN h.going_offline > EXCLUDED.last_heartbeat THEN h.going_offline END,
	recent_gaps = %[1]s,
	interval_s = coalesce((SELECT least(greatest(percentile_cont(0.5) WITHIN GROUP (ORDER BY g), %[2]d), %[3]d)
		FROM unnest(%[1]s) AS g), h.interval_s)
WHERE h.last_heartbeat < EXCLUDED.last_heartbeat`, gapsExpr, int(MinInterval.Seconds()), int(MaxInterval.Seconds()))

// gapsExpr is recent_gaps with the new gap appended, the oldest dropped
// beyond maxGaps.
var gapsExpr = fmt.Sprintf(`(CASE WHEN h.going_offline IS NOT NULL AND h.going_offline >= h.last_heartbeat THEN h.recent_gaps
	ELSE (h.recent_gaps || extract(epoch FROM EXCLUDED.last_heartbeat - h.last_heartbeat)::float8)
		[greatest(cardinality(h.recent_gaps) + 2 - %d, 1):] END)`, maxGaps)

func writeHosts(ctx context.Context, tx pgx.Tx, b *Batch) error {
	n := len(b.Heartbeats)
	if n == 0 {
		return nil
	}
	ids, hostnames, versions, commits, oses, arches := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	cpus, cores := make([]*float64, n), make([]*int32, n)
	memT, memU, diskT, diskF := make([]*int64, n), make([]*int64, n), make([]*int64, n), make([]*int64, n)
	raws, received := make([]string, n), make([]time.Time, n)
	for i, r := range b.Heartbeats {
		hb := &r.Heartbeat
		ids[i], hostnames[i] = r.License, pgText(hb.Host.Hostname)
		versions[i], commits[i] = pgText(hb.Agent.Version), pgText(hb.Agent.Commit)
		oses[i], arches[i] = pgText(hb.Agent.OS), pgText(hb.Agent.Arch)
		cpus[i], memT[i], memU[i] = hb.Host.CPUPercent, mb(hb.Host.MemTotalMB), mb(hb.Host.MemUsedMB)
		if hb.Host.CPUCores != nil {
			c := int32(min(max(*hb.Host.CPUCores, 0), 1<<30))
			cores[i] = &c
		}
		diskT[i], diskF[i] = diskSums(hb.Host.Disks)
		raws[i], received[i] = string(r.JSON), r.Received
	}
	_, err := tx.Exec(ctx, hostUpsert, ids, hostnames, versions, commits, oses, arches, cpus, cores,
		memT, memU, diskT, diskF, raws, received)
	if err != nil {
		return fmt.Errorf("write hosts: %w", err)
	}
	return nil
}

// writeSamples adds one history sample per host and bucket; the first
// heartbeat in a bucket wins, so replicas and redeliveries write it once.
func writeSamples(ctx context.Context, tx pgx.Tx, b *Batch) error {
	n := len(b.Heartbeats)
	if n == 0 {
		return nil
	}
	ids, ats, cpus := make([]string, n), make([]time.Time, n), make([]*float64, n)
	memU, memT, diskF, diskT := make([]*int64, n), make([]*int64, n), make([]*int64, n), make([]*int64, n)
	for i, r := range b.Heartbeats {
		hb := &r.Heartbeat
		ids[i], ats[i], cpus[i] = r.License, r.Received.Truncate(b.SampleEvery), hb.Host.CPUPercent
		memU[i], memT[i] = mb(hb.Host.MemUsedMB), mb(hb.Host.MemTotalMB)
		diskT[i], diskF[i] = diskSums(hb.Host.Disks)
	}
	_, err := tx.Exec(ctx, `INSERT INTO panel_host_samples (license_id, at, cpu_percent, mem_used_mb, mem_total_mb, disk_free_mb, disk_total_mb)
		SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::float8[], $4::int8[], $5::int8[], $6::int8[], $7::int8[])
		ON CONFLICT (license_id, at) DO NOTHING`, ids, ats, cpus, memU, memT, diskF, diskT)
	if err != nil {
		return fmt.Errorf("write host samples: %w", err)
	}
	return nil
}
