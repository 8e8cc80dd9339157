package store

import (
	"context"
	"fmt"
)

// SocialInstance is an instance that can hold an ether node: a sidecar
// (game ether) or a world (game worldsrv).
type SocialInstance struct {
	License  string
	Instance string
	Game     string // "ether" or "worldsrv"
	Label    string
	State    string
}

// SocialInstances returns every ether and worldsrv instance of every
// enabled license, ordered by license and instance, for the social page's
// node-to-instance mapping.
func (s *Store) SocialInstances(ctx context.Context) ([]SocialInstance, error) {
	rows, err := s.pool.Query(ctx, `SELECT i.license_id, i.instance_id, i.game, i.label, i.state
		FROM panel_instances i JOIN panel_licenses l ON l.id = i.license_id
		WHERE i.game IN ('ether', 'worldsrv') AND NOT l.disabled
		ORDER BY i.license_id, i.instance_id`)
	if err != nil {
		return nil, fmt.Errorf("list social instances: %w", err)
	}
	defer rows.Close()
	var out []SocialInstance
	for rows.Next() {
		var si SocialInstance
		if err := rows.Scan(&si.License, &si.Instance, &si.Game, &si.Label, &si.State); err != nil {
			return nil, fmt.Errorf("list social instances: %w", err)
		}
		out = append(out, si)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list social instances: %w", err)
	}
	return out, nil
}
