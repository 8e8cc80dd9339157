// Package store is the panel's Postgres state: operators and their sessions,
// licenses and grants, the fleet's latest state with bounded history, and the
// audit log. Every query the panel runs lives here; other panel packages hold
// no SQL. Only panel packages import it.
package store

import (
	"context"
	"embed"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corrosion/corrosion/internal/migrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Schema is the panel's migrations for internal/migrate (the module's one
// migration mechanism). Files are NNNN_name.sql under migrations/.
var Schema = migrate.Set{FS: migrationFS, Dir: "migrations", Table: "panel_schema_migrations", LockKey: 0x70616e656c01} // "panel\x01"

// ErrNotMigrated is returned by Open when the database's schema is older
// than this binary's; the message names the command that fixes it.
var ErrNotMigrated = errors.New("database is not migrated: run `corrosion-panel migrate`")

// ErrNotFound is returned when a named row does not exist.
var ErrNotFound = errors.New("not found")

// Store is the panel's database. Methods are safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool // immutable after Open
}

// Migrate creates the database when missing and applies every pending
// migration, returning the versions applied.
func Migrate(ctx context.Context, dsn string) ([]int, error) {
	return Schema.Apply(ctx, dsn)
}

// Open connects to a migrated database. It refuses an unmigrated one with
// ErrNotMigrated.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	s := &Store{pool: pool}
	if err := s.checkSchema(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) checkSchema(ctx context.Context) error {
	latest, err := Schema.Latest()
	if err != nil {
		return err
	}
	have, err := Schema.Version(ctx, s.pool)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if have < latest {
		return fmt.Errorf("%w (database at version %d, this panel needs %d)", ErrNotMigrated, have, latest)
	}
	return nil
}

// Pool is the connection pool, for store-level tests and tools.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }
