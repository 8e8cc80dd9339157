package store

import (
	"context"
	"fmt"
	"time"
)

// Retention bounds the fleet history.
type Retention struct {
	Samples           time.Duration // host samples older than this go (24 h)
	Events            time.Duration // status events older than this go (30 days)
	EventsPerInstance int           // each timeline keeps its newest this many events (500)
	Chunk             int           // at most this many rows per kind and call: bounded work (5,000)
}

// DefaultRetention is 24 h of host samples, and of each instance's status
// events the newest 500 no older than 30 days.
var DefaultRetention = Retention{Samples: 24 * time.Hour, Events: 30 * 24 * time.Hour, EventsPerInstance: 500, Chunk: 5000}

// InstanceKey names an instance.
type InstanceKey struct {
	License  string
	Instance string
}

// Pruned counts the rows one Prune call deleted.
type Pruned struct {
	Samples int64 // by age
	Events  int64 // by age
	Trimmed int64 // beyond EventsPerInstance of the given instances
}

// Full reports whether an age pruning hit its chunk, so more may be left.
func (p Pruned) Full(r Retention) bool {
	return p.Samples >= int64(r.Chunk) || p.Events >= int64(r.Chunk)
}

// Prune deletes at most r.Chunk samples and r.Chunk events older than the
// retention at now, and trims the timelines of the given instances (those
// that received events since the last call) to r.EventsPerInstance.
func (s *Store) Prune(ctx context.Context, r Retention, now time.Time, touched []InstanceKey) (Pruned, error) {
	var p Pruned
	tag, err := s.pool.Exec(ctx, `DELETE FROM panel_host_samples WHERE ctid IN (
		SELECT ctid FROM panel_host_samples WHERE at < $1 LIMIT $2)`, now.Add(-r.Samples), r.Chunk)
	if err != nil {
		return p, fmt.Errorf("prune host samples: %w", err)
	}
	p.Samples = tag.RowsAffected()
	tag, err = s.pool.Exec(ctx, `DELETE FROM panel_instance_events WHERE ctid IN (
		SELECT ctid FROM panel_instance_events WHERE at < $1 LIMIT $2)`, now.Add(-r.Events), r.Chunk)
	if err != nil {
		return p, fmt.Errorf("prune status events: %w", err)
	}
	p.Events = tag.RowsAffected()
	if len(touched) == 0 {
		return p, nil
	}
	ls, ids := make([]string, len(touched)), make([]string, len(touched))
	for i, k := range touched {
		ls[i], ids[i] = k.License, k.Instance
	}
	tag, err = s.pool.Exec(ctx, `DELETE FROM panel_instance_events e USING (
		SELECT k.l, k.id, (SELECT at FROM panel_instance_events WHERE license_id = k.l AND instance_id = k.id
			ORDER BY at DESC OFFSET $3 LIMIT 1) AS cutoff
		FROM unnest($1::text[], $2::text[]) AS k(l, id)) c
		WHERE e.license_id = c.l AND e.instance_id = c.id AND e.at <= c.cutoff`, ls, ids, r.EventsPerInstance)
	if err != nil {
		return p, fmt.Errorf("trim timelines: %w", err)
	}
	p.Trimmed = tag.RowsAffected()
	return p, nil
}
