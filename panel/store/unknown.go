package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// UnknownLicenses lists the licenses heartbeats arrived from that are not
// (enabled) panel licenses, most recently seen first. A license an admin
// has since created and enabled is left out.
func (s *Store) UnknownLicenses(ctx context.Context) ([]UnknownLicense, error) {
	return queryRows(ctx, s.pool, "list unknown licenses", pgx.RowToStructByPos[UnknownLicense],
		`SELECT u.license_id, u.first_seen, u.last_seen, u.messages, u.hostname
		FROM panel_unknown_licenses u LEFT JOIN panel_licenses l ON l.id = u.license_id
		WHERE l.id IS NULL OR l.disabled ORDER BY u.last_seen DESC, u.license_id`)
}

// KnownLicense reports whether id is an enabled panel license, whose
// messages ingest writes.
func (s *Store) KnownLicense(ctx context.Context, id string) (bool, error) {
	var known bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM panel_licenses WHERE id = $1 AND NOT disabled)`, id).Scan(&known)
	if err != nil {
		return false, fmt.Errorf("look up license %s: %w", id, err)
	}
	return known, nil
}
