package store

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// MigrationsTable records the applied migrations. It is prefixed because
// the database may be shared with the world server's own tables.
const MigrationsTable = "ether_schema_migrations"

// migrateLockKey is the advisory lock that serialises concurrent
// `ether migrate` runs against one database.
const migrateLockKey = 0x657468657201 // "ether\x01"

// Migration is one versioned schema change, embedded in the binary.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations returns the embedded migrations in version order.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []Migration
	for _, e := range entries {
		name := e.Name()
		num, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql", name)
		}
		b, err := migrationFS.ReadFile(path.Join("migrations", name))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		ms = append(ms, Migration{Version: v, Name: rest, SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration versions must be 1..n without gaps, got %d at %d", m.Version, i+1)
		}
	}
	return ms, nil
}

// LatestVersion is the schema version this binary needs.
func LatestVersion() int {
	ms, err := Migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

// Migrate creates the database named in dsn when it is missing, then
// applies every migration it has not seen yet, each in its own
// transaction. Concurrent runs are serialised by an advisory lock. It
// returns the versions it applied.
func Migrate(ctx context.Context, dsn string) ([]int, error) {
	if err := EnsureDatabase(ctx, dsn); err != nil {
		return nil, err
	}
	ms, err := Migrations()
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("migrate: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrateLockKey)); err != nil {
		return nil, fmt.Errorf("migrate: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(migrateLockKey)) //nolint:errcheck // the lock dies with the connection anyway
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+MigrationsTable+` (
		version    INT PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("migrate: create %s: %w", MigrationsTable, err)
	}
	current, err := schemaVersion(ctx, conn)
	if err != nil {
		return nil, err
	}
	var applied []int
	for _, m := range ms {
		if m.Version <= current {
			continue
		}
		if err := apply(ctx, conn, m); err != nil {
			return applied, err
		}
		applied = append(applied, m.Version)
	}
	return applied, nil
}

func apply(ctx context.Context, conn *pgx.Conn, m Migration) error {
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO "+MigrationsTable+" (version, name) VALUES ($1, $2)", m.Version, m.Name)
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate: apply %04d_%s: %w", m.Version, m.Name, err)
	}
	return nil
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// schemaVersion is the highest applied migration, 0 when the table is
// missing.
func schemaVersion(ctx context.Context, q querier) (int, error) {
	var v int
	err := q.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM "+MigrationsTable).Scan(&v)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// EnsureDatabase creates the database named in dsn if it does not exist,
// connecting to the server's maintenance database (postgres, or template1)
// with the same credentials.
func EnsureDatabase(ctx context.Context, dsn string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	name := cfg.Database
	if name == "" {
		return errors.New("database url names no database")
	}
	conn, err := connectMaintenance(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "42P04" || pgErr.Code == "23505") { // created concurrently
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

func connectMaintenance(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	var firstErr error
	for _, db := range []string{"postgres", "template1", cfg.Database} {
		c := cfg.Copy()
		c.Database = db
		conn, err := pgx.ConnectConfig(ctx, c)
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, fmt.Errorf("connect to the database server: %w", firstErr)
}
