package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/corrosion/corrosion/agent/wire"
)

// License is one agent's license: the unit of grants.
type License struct {
	ID        string
	Label     string
	Disabled  bool
	CreatedAt time.Time
}

// ErrLicenseExists is returned by CreateLicense for an id already created.
var ErrLicenseExists = errors.New("license already exists")

// ErrInvalidLicenseID is returned for an id the wire protocol cannot carry.
var ErrInvalidLicenseID = errors.New("invalid license id: use 1 to 64 letters, digits, '-' or '_'")

// MaxLicenseLabel is the longest label a license may carry, in bytes.
const MaxLicenseLabel = 200

// CreateLicense adds a license. Its heartbeats are then ingested; an
// earlier "unknown license" row for it stays for the admins' record.
func (s *Store) CreateLicense(ctx context.Context, id, label string) error {
	if !wire.ValidLicenseID(id) {
		return fmt.Errorf("create license %q: %w", id, ErrInvalidLicenseID)
	}
	if len(label) > MaxLicenseLabel {
		return fmt.Errorf("create license %s: label longer than %d bytes", id, MaxLicenseLabel)
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO panel_licenses (id, label) VALUES ($1, $2)`, id, label)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" { // unique_violation
		return fmt.Errorf("create license %s: %w", id, ErrLicenseExists)
	}
	if err != nil {
		return fmt.Errorf("create license %s: %w", id, err)
	}
	return nil
}

// Licenses returns every license, ordered by id.
func (s *Store) Licenses(ctx context.Context) ([]License, error) {
	return queryRows(ctx, s.pool, "list licenses", pgx.RowToStructByPos[License],
		`SELECT id, label, disabled, created_at FROM panel_licenses ORDER BY id`)
}

// LicenseState is whether a license is in use or disabled.
type LicenseState bool

// The license states SetLicenseDisabled takes.
const (
	LicenseEnabled  LicenseState = false
	LicenseDisabled LicenseState = true
)

// SetLicenseDisabled disables or re-enables a license. ErrNotFound for an
// unknown id.
func (s *Store) SetLicenseDisabled(ctx context.Context, id string, state LicenseState) error {
	tag, err := s.pool.Exec(ctx, `UPDATE panel_licenses SET disabled = $2 WHERE id = $1`, id, bool(state))
	if err != nil {
		return fmt.Errorf("set license %s disabled: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("set license %s disabled: %w", id, ErrNotFound)
	}
	return nil
}

// SetLicenseLabel changes a license's label. ErrNotFound for an unknown id.
func (s *Store) SetLicenseLabel(ctx context.Context, id, label string) error {
	if len(label) > MaxLicenseLabel {
		return fmt.Errorf("set license %s label: longer than %d bytes", id, MaxLicenseLabel)
	}
	tag, err := s.pool.Exec(ctx, `UPDATE panel_licenses SET label = $2 WHERE id = $1`, id, label)
	if err != nil {
		return fmt.Errorf("set license %s label: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("set license %s label: %w", id, ErrNotFound)
	}
	return nil
}
