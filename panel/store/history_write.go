package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// writeEvents appends status events to the timelines; a redelivered event
// (same instance, time and state) is written once.
func writeEvents(ctx context.Context, tx pgx.Tx, b *Batch, _ *hostPlan) error {
	n := len(b.Events)
	if n == 0 {
		return nil
	}
	ls, ids, states, msgs := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	ats, codes, pids, crashes := make([]time.Time, n), make([]*int32, n), make([]*int32, n), make([]int32, n)
	for i, e := range b.Events {
		ls[i], ids[i], ats[i], states[i], msgs[i] = e.License, e.Instance, e.At, pgText(string(e.State)), pgText(e.Message)
		pids[i], crashes[i] = int4(e.PID), *orZero(int4(e.CrashCount))
		if e.ExitCode != nil {
			c := *orZero(int4(*e.ExitCode))
			codes[i] = &c
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO panel_instance_events (license_id, instance_id, at, state, exit_code, pid, crash_count, message)
		SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::int4[], $6::int4[], $7::int4[], $8::text[])
		ON CONFLICT DO NOTHING`, ls, ids, ats, states, codes, pids, crashes, msgs)
	if err != nil {
		return fmt.Errorf("write status events: %w", err)
	}
	return nil
}

func orZero(p *int32) *int32 {
	if p == nil {
		return new(int32)
	}
	return p
}

// instanceEventUpsert applies each instance's newest status event of the
// batch: its state when newer than the row's last report (heartbeat or
// event), its crash count and message when newer than the last event.
const instanceEventUpsert = `INSERT INTO panel_instances AS i (license_id, instance_id, state, pid, crash_count,
	last_message, state_since, updated_at, last_event_at)
SELECT l, id, state, pid, crashes, msg, at, at, at FROM unnest($1::text[], $2::text[], $3::text[], $4::int4[],
	$5::int4[], $6::text[], $7::timestamptz[]) AS u(l, id, state, pid, crashes, msg, at)
ON CONFLICT (license_id, instance_id) DO UPDATE SET
	state = CASE WHEN i.updated_at <= EXCLUDED.updated_at THEN EXCLUDED.state ELSE i.state END,
	pid = CASE WHEN i.updated_at <= EXCLUDED.updated_at THEN EXCLUDED.pid ELSE i.pid END,
	state_since = CASE WHEN i.updated_at <= EXCLUDED.updated_at AND i.state <> EXCLUDED.state
		THEN EXCLUDED.state_since ELSE i.state_since END,
	updated_at = greatest(i.updated_at, EXCLUDED.updated_at),
	crash_count = CASE WHEN i.last_event_at IS NULL OR i.last_event_at <= EXCLUDED.last_event_at
		THEN EXCLUDED.crash_count ELSE i.crash_count END,
	last_message = CASE WHEN i.last_event_at IS NULL OR i.last_event_at <= EXCLUDED.last_event_at
		THEN EXCLUDED.last_message ELSE i.last_message END,
	last_event_at = greatest(i.last_event_at, EXCLUDED.last_event_at)`

func writeEventInstances(ctx context.Context, tx pgx.Tx, b *Batch, _ *hostPlan) error {
	var ls, ids, states, msgs []string
	var pids []*int32
	var crashes []int32
	var ats []time.Time
	for i, e := range b.Events { // sorted by license, instance, time: keep each instance's last
		if i+1 < len(b.Events) && b.Events[i+1].License == e.License && b.Events[i+1].Instance == e.Instance {
			continue
		}
		ls, ids, states, msgs = append(ls, e.License), append(ids, e.Instance), append(states, pgText(string(e.State))), append(msgs, pgText(e.Message))
		pids, crashes, ats = append(pids, int4(e.PID)), append(crashes, *orZero(int4(e.CrashCount))), append(ats, e.At)
	}
	if len(ls) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, instanceEventUpsert, ls, ids, states, pids, crashes, msgs, ats); err != nil {
		return fmt.Errorf("write instances from events: %w", err)
	}
	return nil
}
