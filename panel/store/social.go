package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// SocialInstance is an instance that can hold an ether node: a sidecar
// (game ether) or a world (game worldsrv).
type SocialInstance struct {
	License  string
	Instance string
	Game     string // "ether" or "worldsrv"
	Label    string
	State    string
	// StoppedBy and StoppedAt name the operator whose stop is the
	// instance's newest power action in the audit log, and when; "" and
	// zero when the newest is not a stop (or there is none).
	StoppedBy string
	StoppedAt time.Time
}

// SocialInstances returns every ether and worldsrv instance of every
// enabled license, ordered by license and instance, for the social page's
// node-to-instance mapping, each with who stopped it when the audit log
// says so.
func (s *Store) SocialInstances(ctx context.Context) ([]SocialInstance, error) {
	return queryRows(ctx, s.pool, "list social instances", scanSocialInstance, `SELECT i.license_id, i.instance_id, i.game, i.label, i.state,
			COALESCE(a.user_name, ''), COALESCE(a.at, 'epoch'::timestamptz)
		FROM panel_instances i JOIN panel_licenses l ON l.id = i.license_id
		LEFT JOIN LATERAL (SELECT target, user_name, at FROM panel_audit
			WHERE license_id = i.license_id AND instance_id = i.instance_id AND action = 'instance.power' AND result = 'ok'
			ORDER BY id DESC LIMIT 1) a ON a.target = 'stop'
		WHERE i.game IN ('ether', 'worldsrv') AND NOT l.disabled
		ORDER BY i.license_id, i.instance_id`)
}

func scanSocialInstance(r pgx.CollectableRow) (SocialInstance, error) {
	var si SocialInstance
	err := r.Scan(&si.License, &si.Instance, &si.Game, &si.Label, &si.State, &si.StoppedBy, &si.StoppedAt)
	if si.StoppedBy == "" {
		si.StoppedAt = time.Time{}
	}
	return si, err
}
