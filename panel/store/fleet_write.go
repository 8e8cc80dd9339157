package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/corrosion/corrosion/agent/wire"
)

// DefaultSampleEvery is the host telemetry history's resolution: at most one
// sample per host in each such bucket (the first heartbeat in it wins).
const DefaultSampleEvery = 10 * time.Second

// Batch is what ingest writes in ONE transaction: the newest heartbeat of
// each host, status events, going_offline beacons, and how many messages
// each license sent (so that unknown licenses are counted, not dropped).
type Batch struct {
	Heartbeats []HeartbeatRow // at most one per license
	Events     []Event        // ID is ignored
	Beacons    []Beacon       // at most one per license
	// Messages counts every message a license contributed to the batch,
	// coalesced ones included.
	Messages map[string]int64
	// SampleEvery is the history bucket; 0: DefaultSampleEvery.
	SampleEvery time.Duration
}

// HeartbeatRow is one host's newest heartbeat.
type HeartbeatRow struct {
	License   string
	Received  time.Time // when the panel received it: last_heartbeat
	Heartbeat wire.Heartbeat
	JSON      []byte // stored as panel_hosts.heartbeat: valid UTF-8 JSON without \u0000
}

// Beacon is a going_offline beacon.
type Beacon struct {
	License string
	At      time.Time // when the panel received it
}

// Empty reports whether b holds nothing to write.
func (b *Batch) Empty() bool {
	return len(b.Heartbeats) == 0 && len(b.Events) == 0 && len(b.Beacons) == 0 && len(b.Messages) == 0
}

// BatchResult is what ApplyBatch did.
type BatchResult struct {
	// Unknown counts the messages of each license that is not an enabled
	// panel license (written to panel_unknown_licenses instead).
	Unknown map[string]int64
}

// ApplyBatch writes b in one transaction: unknown licenses counted, then
// beacons, instances from heartbeats (only of hosts whose instances changed
// or are due a refresh), hosts with their samples, events with the
// instances they update. Rows are written in key order so that two
// replicas' concurrent batches do not deadlock; redelivered events are
// written once (the dedup index). Stale data never overwrites newer: a
// heartbeat older than the host's last one, or an instance report older
// than its row, leaves it be.
func (s *Store) ApplyBatch(ctx context.Context, b Batch) (BatchResult, error) {
	var res BatchResult
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		known, err := knownLicenses(ctx, tx, b)
		if err != nil {
			return err
		}
		res.Unknown, err = countUnknown(ctx, tx, b, known)
		if err != nil {
			return err
		}
		kb := b.known(known)
		plan := newHostPlan(&kb)
		for _, step := range []func(context.Context, pgx.Tx, *Batch, *hostPlan) error{
			writeBeacons, planHosts, writeHeartbeatInstances, deleteGoneInstances, writeHosts, writeEvents, writeEventInstances,
		} {
			if err := step(ctx, tx, &kb, plan); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && s.refused(ctx, err) {
		return BatchResult{}, fmt.Errorf("apply ingest batch: %w: %w", ErrBatchRefused, err)
	}
	if err != nil {
		return BatchResult{}, fmt.Errorf("apply ingest batch: %w", err)
	}
	return res, nil
}

// knownLicenses returns the batch's licenses that are enabled panel
// licenses. (Not locked: a license deleted meanwhile fails its rows' foreign
// keys, and ingest then writes the batch license by license.)
func knownLicenses(ctx context.Context, tx pgx.Tx, b Batch) (map[string]bool, error) {
	ids := make([]string, 0, len(b.Messages))
	for id := range b.Messages {
		ids = append(ids, id)
	}
	for _, h := range b.Heartbeats {
		ids = append(ids, h.License)
	}
	for _, e := range b.Events {
		ids = append(ids, e.License)
	}
	for _, bc := range b.Beacons {
		ids = append(ids, bc.License)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	rows, err := tx.Query(ctx, `SELECT id FROM panel_licenses WHERE id = ANY($1) AND NOT disabled`, ids)
	if err != nil {
		return nil, fmt.Errorf("look up licenses: %w", err)
	}
	known := make(map[string]bool, len(ids))
	var id string
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { known[id] = true; return nil }); err != nil {
		return nil, fmt.Errorf("look up licenses: %w", err)
	}
	return known, nil
}

// known is b without the unknown licenses' rows, sorted by key.
func (b Batch) known(known map[string]bool) Batch {
	out := Batch{SampleEvery: b.SampleEvery}
	if out.SampleEvery <= 0 {
		out.SampleEvery = DefaultSampleEvery
	}
	for _, h := range b.Heartbeats {
		if known[h.License] {
			out.Heartbeats = append(out.Heartbeats, h)
		}
	}
	for _, e := range b.Events {
		if known[e.License] {
			out.Events = append(out.Events, e)
		}
	}
	for _, bc := range b.Beacons {
		if known[bc.License] {
			out.Beacons = append(out.Beacons, bc)
		}
	}
	slices.SortFunc(out.Heartbeats, func(a, b HeartbeatRow) int { return strings.Compare(a.License, b.License) })
	slices.SortFunc(out.Beacons, func(a, b Beacon) int { return strings.Compare(a.License, b.License) })
	slices.SortFunc(out.Events, func(a, b Event) int {
		return cmp.Or(strings.Compare(a.License, b.License), strings.Compare(a.Instance, b.Instance), a.At.Compare(b.At))
	})
	return out
}

// countUnknown adds the unknown licenses' messages to panel_unknown_licenses.
func countUnknown(ctx context.Context, tx pgx.Tx, b Batch, known map[string]bool) (map[string]int64, error) {
	unknown := map[string]int64{}
	last := map[string]time.Time{}
	host := map[string]string{}
	note := func(id string, at time.Time, n int64) {
		if known[id] {
			return
		}
		unknown[id] += n
		if at.After(last[id]) {
			last[id] = at
		}
	}
	for id, n := range b.Messages {
		note(id, time.Time{}, n)
	}
	for _, h := range b.Heartbeats {
		note(h.License, h.Received, 0)
		if !known[h.License] {
			host[h.License] = pgText(h.Heartbeat.Host.Hostname)
		}
	}
	for _, e := range b.Events {
		note(e.License, time.Time{}, 0)
	}
	for _, bc := range b.Beacons {
		note(bc.License, bc.At, 0)
	}
	if len(unknown) == 0 {
		return nil, nil
	}
	ids := make([]string, 0, len(unknown))
	for id := range unknown {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	now := time.Now()
	ats, ns, hosts := make([]time.Time, len(ids)), make([]int64, len(ids)), make([]string, len(ids))
	for i, id := range ids {
		ats[i], ns[i], hosts[i] = cmp.Or(last[id], now), max(unknown[id], 1), host[id]
		unknown[id] = ns[i]
	}
	_, err := tx.Exec(ctx, `INSERT INTO panel_unknown_licenses AS x (license_id, first_seen, last_seen, messages, hostname)
		SELECT * FROM unnest($1::text[], $2::timestamptz[], $2::timestamptz[], $3::int8[], $4::text[])
		ON CONFLICT (license_id) DO UPDATE SET last_seen = greatest(x.last_seen, EXCLUDED.last_seen),
			messages = x.messages + EXCLUDED.messages,
			hostname = CASE WHEN EXCLUDED.hostname <> '' THEN EXCLUDED.hostname ELSE x.hostname END`,
		ids, ats, ns, hosts)
	if err != nil {
		return nil, fmt.Errorf("count unknown licenses: %w", err)
	}
	return unknown, nil
}

// pgText drops the NUL bytes PostgreSQL text cannot hold.
func pgText(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "")
}

// mb converts a wire figure to a bigint column value.
func mb(v *uint64) *int64 {
	if v == nil {
		return nil
	}
	n := int64(min(*v, math.MaxInt64))
	return &n
}

// ErrBatchRefused wraps an ApplyBatch error when the database is up but
// refused the batch itself (a value it will not store): retrying the same
// rows would fail again. Any other error is worth retrying (the database
// is unreachable or restarting, or the transaction lost a race).
var ErrBatchRefused = errors.New("the database refused the batch")

// refusedPing bounds the ping that tells a refused batch from an outage.
const refusedPing = 2 * time.Second

// refused reports whether err (from writing a batch) came from a database
// that is up: not a lost race, and the database answers a ping.
func (s *Store) refused(ctx context.Context, err error) bool {
	var pgErr *pgconn.PgError
	if ctx.Err() != nil || errors.As(err, &pgErr) && strings.HasPrefix(pgErr.Code, "40") {
		return false // cancelled, or a deadlock or serialization failure
	}
	pctx, cancel := context.WithTimeout(ctx, refusedPing)
	defer cancel()
	return s.pool.Ping(pctx) == nil
}
