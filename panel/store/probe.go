package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/agent/wire"
)

// Probe is the panel's last inbound probe of an instance (docs/probe.md).
type Probe struct {
	At      time.Time
	Verdict string // reach.Verdict of Report
	Players *int   // from the report's A2S answer; nil: none
	Report  wire.ProbeReport
}

// SaveProbe records the instance's last inbound probe, replacing the one
// before. ErrNotFound when the instance is gone (deleted meanwhile).
func (s *Store) SaveProbe(ctx context.Context, license, id string, p Probe) error {
	report, err := json.Marshal(p.Report)
	if err != nil {
		return fmt.Errorf("save probe of %s/%s: %w", license, id, err)
	}
	var players *int32
	if p.Players != nil {
		players = new(int32(min(max(*p.Players, 0), math.MaxInt32)))
	}
	tag, err := s.pool.Exec(ctx, `UPDATE panel_instances SET probe = $3::jsonb, probe_at = $4, probe_verdict = $5,
		probe_players = $6 WHERE license_id = $1 AND instance_id = $2`, license, id, string(report), p.At, pgText(p.Verdict), players)
	if err != nil {
		return fmt.Errorf("save probe of %s/%s: %w", license, id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("save probe of %s/%s: %w", license, id, ErrNotFound)
	}
	return nil
}

// InstanceProbe is the instance's last inbound probe; ok false when it
// was never probed, ErrNotFound when there is no such instance.
func (s *Store) InstanceProbe(ctx context.Context, license, id string) (p Probe, ok bool, err error) {
	var at *time.Time
	var report []byte
	var players *int32
	err = s.pool.QueryRow(ctx, `SELECT probe_at, probe, probe_verdict, probe_players FROM panel_instances
		WHERE license_id = $1 AND instance_id = $2`, license, id).Scan(&at, &report, &p.Verdict, &players)
	if errors.Is(err, pgx.ErrNoRows) {
		return Probe{}, false, fmt.Errorf("instance %s/%s: %w", license, id, ErrNotFound)
	}
	if err != nil {
		return Probe{}, false, fmt.Errorf("read probe of %s/%s: %w", license, id, err)
	}
	if at == nil || report == nil {
		return Probe{}, false, nil
	}
	if err := json.Unmarshal(report, &p.Report); err != nil {
		return Probe{}, false, fmt.Errorf("read probe of %s/%s: %w", license, id, err)
	}
	p.At = *at
	if players != nil {
		p.Players = new(int(*players))
	}
	return p, true, nil
}
