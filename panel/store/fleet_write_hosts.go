package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/jackc/pgx/v5"
)

// maxGaps is how many recent heartbeat gaps a host keeps for its interval.
const maxGaps = 8

// hostPlan is what the heartbeat steps of one batch share.
type hostPlan struct {
	sigs []int64 // per Batch.Heartbeats: the signature of its instance reports
	// due holds the licenses whose instance rows this batch writes: new
	// hosts, changed instances, or telemetry older than the sample bucket.
	due map[string]bool
	// full holds the licenses whose whole heartbeat (jsonb) and a sample
	// this batch writes: new hosts, or the last one a sample bucket old.
	// The others' heartbeats are not even sent.
	full map[string]bool
}

func newHostPlan(b *Batch) *hostPlan {
	p := &hostPlan{sigs: make([]int64, len(b.Heartbeats)), due: map[string]bool{}, full: map[string]bool{}}
	for i, r := range b.Heartbeats {
		p.sigs[i] = instanceSig(r)
	}
	return p
}

// instanceSig hashes what an instance row holds from a heartbeat apart
// from telemetry: ids, states, pids, games, labels, builds and declared
// ports, in id order.
func instanceSig(r HeartbeatRow) int64 {
	h := fnv.New64a()
	var buf [8]byte
	for _, in := range sortedReports(r.Heartbeat.Instances) {
		for _, s := range []string{in.ID, string(in.State), in.Game, in.Label, in.Build, in.AvailableBuild} {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
		binary.LittleEndian.PutUint64(buf[:], uint64(in.PID))
		h.Write(buf[:])
		for _, p := range in.Ports {
			h.Write([]byte(p.Name + "\x00" + p.Protocol + "\x00"))
			binary.LittleEndian.PutUint64(buf[:], uint64(p.Port))
			h.Write(buf[:])
		}
	}
	return int64(h.Sum64())
}

// writeBeacons marks hosts going offline (a beacon older than the host's
// last heartbeat is harmless: HostOnline ignores it).
func writeBeacons(ctx context.Context, tx pgx.Tx, b *Batch, _ *hostPlan) error {
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

// planHosts finds the hosts whose instance rows need writing, and those
// whose whole heartbeat is due: most heartbeats change nothing but
// telemetry, and cost neither an instance row nor a jsonb.
func planHosts(ctx context.Context, tx pgx.Tx, b *Batch, p *hostPlan) error {
	n := len(b.Heartbeats)
	if n == 0 {
		return nil
	}
	ids, ats, received := make([]string, n), make([]time.Time, n), make([]time.Time, n)
	for i, r := range b.Heartbeats {
		ids[i], ats[i], received[i] = r.License, r.At(), r.Received
	}
	rows, err := tx.Query(ctx, `SELECT u.l,
			h.license_id IS NULL OR h.instances_sig IS DISTINCT FROM u.sig OR h.instances_at <= u.at - $5::interval,
			h.license_id IS NULL OR u.received >= h.heartbeat_at + $5::interval
		FROM unnest($1::text[], $2::int8[], $3::timestamptz[], $4::timestamptz[]) AS u(l, sig, at, received)
		LEFT JOIN panel_hosts h ON h.license_id = u.l
		WHERE h.license_id IS NULL OR h.instances_sig IS DISTINCT FROM u.sig OR h.instances_at <= u.at - $5::interval
			OR u.received >= h.heartbeat_at + $5::interval`,
		ids, p.sigs, ats, received, b.SampleEvery)
	if err != nil {
		return fmt.Errorf("plan host writes: %w", err)
	}
	var id string
	var due, full bool
	_, err = pgx.ForEachRow(rows, []any{&id, &due, &full}, func() error {
		p.due[id], p.full[id] = due, full
		return nil
	})
	if err != nil {
		return fmt.Errorf("plan host writes: %w", err)
	}
	return nil
}

// hostRows is the batch's hosts as a relation u (parameters $1 … $17, $19
// … $21; $18 is the sample bucket); the heartbeat stays text until a
// statement needs it as jsonb.
const hostRows = `unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::int4[],
		$9::int8[], $10::int8[], $11::int8[], $12::int8[], $13::text[], $14::timestamptz[], $15::int8[], $16::bool[],
		$17::timestamptz[], $19::text[], $20::int8[], $21::text[])
	AS u(license_id, hostname, agent_version, agent_commit, os, arch, cpu_percent, cpu_cores,
		mem_total_mb, mem_used_mb, disk_total_mb, disk_free_mb, heartbeat, received, sig, due, at, impossible, skew_ms,
		public_address)`

// hostReturning is what ins and upd (as h) return for the samples.
const hostReturning = `RETURNING h.license_id, h.last_heartbeat, h.cpu_percent, h.mem_used_mb, h.mem_total_mb, h.disk_free_mb,
	h.disk_total_mb`

// hostInsert adds the hosts seen for the first time.
const hostInsert = `INSERT INTO panel_hosts AS h (license_id, hostname, agent_version, agent_commit, os, arch, cpu_percent,
	cpu_cores, mem_total_mb, mem_used_mb, disk_total_mb, disk_free_mb, heartbeat, heartbeat_at, first_seen,
	last_heartbeat, instances_sig, instances_at, impossible, clock_skew_ms, public_address)
SELECT license_id, hostname, agent_version, agent_commit, os, arch, cpu_percent, cpu_cores, mem_total_mb, mem_used_mb,
	disk_total_mb, disk_free_mb, (CASE WHEN heartbeat = '' THEN '{}' ELSE heartbeat END)::jsonb, received, received,
	received, sig, at, impossible, skew_ms, public_address FROM ` + hostRows + `
WHERE NOT EXISTS (SELECT 1 FROM panel_hosts o WHERE o.license_id = u.license_id)
ON CONFLICT (license_id) DO NOTHING ` + hostReturning + `, true AS sampled`

// hostUpdate writes each known host's latest state when newer than the
// row. The whole heartbeat (jsonb: parsing it is most of a row's cost) is
// stored, and a history sample taken, at most every $18 (the sample
// bucket); the columns every time. The new gap since the last heartbeat
// joins recent_gaps (unless a going_offline beacon came between: that gap
// is a restart, not the interval), and interval_s is their median,
// clamped. A beacon older than this heartbeat is cleared.
var hostUpdate = fmt.Sprintf(`UPDATE panel_hosts h SET hostname = u.hostname, agent_version = u.agent_version,
	agent_commit = u.agent_commit, os = u.os, arch = u.arch, cpu_percent = u.cpu_percent,
	cpu_cores = u.cpu_cores, mem_total_mb = u.mem_total_mb, mem_used_mb = u.mem_used_mb,
	disk_total_mb = u.disk_total_mb, disk_free_mb = u.disk_free_mb, impossible = u.impossible, clock_skew_ms = u.skew_ms,
	public_address = u.public_address,
	heartbeat = CASE WHEN u.heartbeat <> '' AND u.received >= h.heartbeat_at + $18::interval
		THEN u.heartbeat::jsonb ELSE h.heartbeat END,
	heartbeat_at = CASE WHEN u.heartbeat <> '' AND u.received >= h.heartbeat_at + $18::interval
		THEN u.received ELSE h.heartbeat_at END,
	instances_sig = CASE WHEN u.due THEN u.sig ELSE h.instances_sig END,
	instances_at = CASE WHEN u.due THEN u.at ELSE h.instances_at END,
	last_heartbeat = u.received,
	going_offline = CASE WHEN h.going_offline > u.received THEN h.going_offline END,
	recent_gaps = %[1]s,
	interval_s = coalesce((SELECT least(greatest(percentile_cont(0.5) WITHIN GROUP (ORDER BY g), %[2]d), %[3]d)
		FROM unnest(%[1]s) AS g), h.interval_s)
FROM `+hostRows+` WHERE h.license_id = u.license_id AND h.last_heartbeat < u.received
`+hostReturning+`, h.heartbeat_at = u.received AS sampled`, gapsExpr, int(MinInterval.Seconds()), int(MaxInterval.Seconds()))

// hostWrite is both, plus the samples they took, in one statement (one
// snapshot: the insert skips exactly the hosts the update sees), so the
// batch is sent once. Two replicas' samples of one bucket are written once.
var hostWrite = `WITH ins AS (` + hostInsert + `), upd AS (` + hostUpdate + `)
INSERT INTO panel_host_samples (license_id, at, cpu_percent, mem_used_mb, mem_total_mb, disk_free_mb, disk_total_mb)
SELECT license_id, last_heartbeat, cpu_percent, mem_used_mb, mem_total_mb, disk_free_mb, disk_total_mb
FROM (SELECT * FROM ins UNION ALL SELECT * FROM upd) x WHERE x.sampled
ON CONFLICT (license_id, at) DO NOTHING`

// gapsExpr is recent_gaps with the new gap appended, the oldest dropped
// beyond maxGaps.
var gapsExpr = fmt.Sprintf(`(CASE WHEN h.going_offline IS NOT NULL AND h.going_offline >= h.last_heartbeat THEN h.recent_gaps
	ELSE (h.recent_gaps || extract(epoch FROM u.received - h.last_heartbeat)::float8)
		[greatest(cardinality(h.recent_gaps) + 2 - %d, 1):] END)`, maxGaps)

func writeHosts(ctx context.Context, tx pgx.Tx, b *Batch, p *hostPlan) error {
	n := len(b.Heartbeats)
	if n == 0 {
		return nil
	}
	ids, hostnames, versions, commits, oses, arches := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	cpus, cores := make([]*float64, n), make([]*int32, n)
	memT, memU, diskT, diskF := make([]*int64, n), make([]*int64, n), make([]*int64, n), make([]*int64, n)
	raws, received, due, ats := make([]string, n), make([]time.Time, n), make([]bool, n), make([]time.Time, n)
	impossible, skews, addrs := make([]string, n), make([]int64, n), make([]string, n)
	for i, r := range b.Heartbeats {
		h := HostFromHeartbeat(Host{License: r.License}, r)
		ids[i], hostnames[i], versions[i], commits[i], oses[i], arches[i] = r.License, h.Hostname, h.AgentVersion, h.AgentCommit, h.OS, h.Arch
		cpus[i], memT[i], memU[i], diskT[i], diskF[i] = h.CPUPercent, h.MemTotalMB, h.MemUsedMB, h.DiskTotalMB, h.DiskFreeMB
		if h.CPUCores != nil {
			c := int32(*h.CPUCores)
			cores[i] = &c
		}
		received[i], due[i], ats[i] = r.Received, p.due[r.License], r.At()
		impossible[i], skews[i], addrs[i] = pgText(impossibleText(h.Impossible)), h.ClockSkew.Milliseconds(), h.PublicAddress
		if p.full[r.License] {
			raws[i] = string(r.JSON)
		}
	}
	_, err := tx.Exec(ctx, hostWrite, ids, hostnames, versions, commits, oses, arches, cpus, cores,
		memT, memU, diskT, diskF, raws, received, p.sigs, due, ats, b.SampleEvery, impossible, skews, addrs)
	if err != nil {
		return fmt.Errorf("write hosts: %w", err)
	}
	return nil
}
