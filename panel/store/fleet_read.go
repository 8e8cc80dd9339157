package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/agent/wire"
)

// hostColumns is what Hosts and Host read; scanHost matches it.
const hostColumns = `l.id, l.label, h.license_id IS NOT NULL, coalesce(h.hostname, ''),
	coalesce(h.agent_version, ''), coalesce(h.agent_commit, ''), coalesce(h.os, ''), coalesce(h.arch, ''),
	h.cpu_percent, h.cpu_cores, h.mem_total_mb, h.mem_used_mb, h.disk_total_mb, h.disk_free_mb,
	h.first_seen, h.last_heartbeat, coalesce(h.interval_s, 0), h.going_offline, coalesce(h.impossible, ''),
	coalesce(h.clock_skew_ms, 0), coalesce(h.public_address, '')`

// scanHost scans hostColumns, then any extra columns into extra.
func scanHost(row pgx.Row, extra ...any) (Host, error) {
	var h Host
	var first, last, going *time.Time
	var interval float64
	var impossible string
	var skewMS int64
	dest := []any{&h.License, &h.Label, &h.Seen, &h.Hostname, &h.AgentVersion, &h.AgentCommit, &h.OS, &h.Arch,
		&h.CPUPercent, &h.CPUCores, &h.MemTotalMB, &h.MemUsedMB, &h.DiskTotalMB, &h.DiskFreeMB}
	dest = append(dest, &first, &last, &interval, &going, &impossible, &skewMS, &h.PublicAddress)
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return Host{}, err
	}
	h.FirstSeen, h.LastHeartbeat, h.GoingOffline = deref(first), deref(last), deref(going)
	h.Interval = time.Duration(interval * float64(time.Second))
	h.ClockSkew = time.Duration(skewMS) * time.Millisecond
	if impossible != "" {
		h.Impossible = strings.Split(impossible, "\n")
	}
	if h.Seen {
		h.Interval = ClampInterval(h.Interval)
	}
	h.Counts = map[wire.State]int{}
	return h, nil
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// Hosts lists the enabled licenses the filter selects, ordered by label
// then license, each with its latest state, instance counts by state and
// (with f.Spark) its last samples. Licenses that never sent a heartbeat
// are listed with Seen false (offline).
func (s *Store) Hosts(ctx context.Context, f HostFilter) ([]Host, error) {
	if f.Licenses != nil && len(f.Licenses) == 0 {
		return nil, nil
	}
	now := f.Now
	if now.IsZero() {
		now = time.Now()
	}
	q := `SELECT ` + hostColumns + ` FROM panel_licenses l LEFT JOIN panel_hosts h ON h.license_id = l.id
		WHERE NOT l.disabled AND ($1::text[] IS NULL OR l.id = ANY($1))
		AND ($2 = '' OR strpos(lower(l.id || ' ' || l.label || ' ' || coalesce(h.hostname, '') || ' ' ||
			coalesce(h.agent_version, '')), lower($2)) > 0)
		ORDER BY l.label, l.id`
	hosts, err := queryRows(ctx, s.pool, "list hosts", func(r pgx.CollectableRow) (Host, error) { return scanHost(r) },
		q, f.Licenses, strings.TrimSpace(f.Search))
	if err != nil {
		return nil, err
	}
	kept := hosts[:0]
	for _, h := range hosts {
		h.Online = h.OnlineAt(now)
		if f.State == OnlineOnly && !h.Online || f.State == OfflineOnly && h.Online {
			continue
		}
		kept = append(kept, h)
	}
	if err := s.fillHosts(ctx, kept, f.Spark, now); err != nil {
		return nil, err
	}
	return kept, nil
}

// fillHosts adds instance counts and the last spark samples to hosts.
func (s *Store) fillHosts(ctx context.Context, hosts []Host, spark int, now time.Time) error {
	if len(hosts) == 0 {
		return nil
	}
	ids := make([]string, len(hosts))
	byID := make(map[string]*Host, len(hosts))
	for i := range hosts {
		ids[i] = hosts[i].License
		byID[ids[i]] = &hosts[i]
	}
	rows, err := s.pool.Query(ctx, `SELECT license_id, state, count(*) FROM panel_instances
		WHERE license_id = ANY($1) GROUP BY license_id, state`, ids)
	if err != nil {
		return fmt.Errorf("count instances: %w", err)
	}
	var license, state string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&license, &state, &n}, func() error {
		byID[license].Counts[wire.State(state)] = n
		return nil
	})
	if err != nil {
		return fmt.Errorf("count instances: %w", err)
	}
	if spark <= 0 {
		return nil
	}
	// One range scan over the recent window (not a LIMIT per host: 1,000
	// index scans cost ten times more), one row of arrays per host (far
	// cheaper to send and decode than a row per sample).
	since := now.Add(-time.Duration(spark+1) * DefaultSampleEvery)
	rows, err = s.pool.Query(ctx, `SELECT license_id, array_agg(at), array_agg(cpu_percent), array_agg(mem_used_mb),
			array_agg(mem_total_mb), array_agg(disk_free_mb), array_agg(disk_total_mb)
		FROM (SELECT * FROM panel_host_samples WHERE license_id = ANY($1) AND at >= $2 ORDER BY license_id, at) s
		GROUP BY license_id`, ids, since)
	if err != nil {
		return fmt.Errorf("read samples: %w", err)
	}
	var ats []time.Time
	var cpus []*float64
	var memU, memT, diskF, diskT []*int64
	_, err = pgx.ForEachRow(rows, []any{&license, &ats, &cpus, &memU, &memT, &diskF, &diskT}, func() error {
		all := make([]Sample, len(ats))
		for i := range ats {
			all[i] = Sample{At: ats[i], CPUPercent: cpus[i], MemUsedMB: memU[i], MemTotalMB: memT[i],
				DiskFreeMB: diskF[i], DiskTotalMB: diskT[i]}
		}
		slices.SortFunc(all, func(a, b Sample) int { return a.At.Compare(b.At) }) // already sorted, as a rule
		byID[license].Samples = all[max(len(all)-spark, 0):]                      // the newest spark of them
		return nil
	})
	if err != nil {
		return fmt.Errorf("read samples: %w", err)
	}
	return nil
}

// Host returns one enabled license's host with its instance counts, the
// last heartbeat and its probe report. ErrNotFound: no such license.
func (s *Store) Host(ctx context.Context, license string) (Host, error) {
	row := s.pool.QueryRow(ctx, `SELECT `+hostColumns+`, h.heartbeat
		FROM panel_licenses l LEFT JOIN panel_hosts h ON h.license_id = l.id
		WHERE l.id = $1 AND NOT l.disabled`, license)
	var raw []byte
	h, err := scanHost(row, &raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return Host{}, fmt.Errorf("host %s: %w", license, ErrNotFound)
	}
	if err != nil {
		return Host{}, fmt.Errorf("read host %s: %w", license, err)
	}
	h.Online = h.OnlineAt(time.Now())
	if len(raw) > 0 {
		h.Heartbeat = raw
		var hb struct {
			Probe *wire.ProbeReport `json:"probe"`
		}
		if json.Unmarshal(raw, &hb) == nil {
			h.Probe = hb.Probe
		}
	}
	hosts := []Host{h}
	if err := s.fillHosts(ctx, hosts, 0, time.Time{}); err != nil {
		return Host{}, err
	}
	return hosts[0], nil
}
