// Package migrate is the module's one schema migration mechanism: numbered
// SQL files (NNNN_name.sql, 1..n without gaps) applied in order, each in its
// own transaction, recorded in a versions table of the caller's choosing,
// with concurrent runs serialised by a PostgreSQL advisory lock. ether,
// worldsrv and the panel each describe their migrations with a Set.
package migrate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Set is one component's migrations. It is a plain value; the zero Dir
// means the root of FS.
type Set struct {
	FS      fs.FS  // holds the NNNN_name.sql files
	Dir     string // directory in FS holding them ("" = ".")
	Table   string // versions table, e.g. "ether_schema_migrations"
	LockKey int64  // pg_advisory_lock key serialising concurrent runs
}

// Migration is one versioned schema change.
type Migration struct {
	Version int
	Name    string // the part after NNNN_, without .sql; recorded in the versions table
	File    string // the file name, for messages
	SQL     string
}

var (
	tableName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)
	fileName  = regexp.MustCompile(`^([0-9]+)_([a-z0-9_]+)\.sql$`)
)

// Migrations reads and checks the set's files and returns them in version
// order. Every entry must be named NNNN_name.sql (lower-case name) and the
// versions must run 1..n without gaps or duplicates.
func (s Set) Migrations() ([]Migration, error) {
	if !tableName.MatchString(s.Table) {
		return nil, fmt.Errorf("versions table %q: want a lower-case SQL identifier", s.Table)
	}
	dir := s.Dir
	if dir == "" {
		dir = "."
	}
	entries, err := fs.ReadDir(s.FS, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	ms := make([]Migration, 0, len(entries))
	for _, e := range entries {
		m, err := readMigration(s.FS, dir, e)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if i > 0 && m.Version == ms[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s share version %d", ms[i-1].File, m.File, m.Version)
		}
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: versions must run 1..n without gaps, want %d here", m.File, i+1)
		}
	}
	return ms, nil
}

func readMigration(fsys fs.FS, dir string, e fs.DirEntry) (Migration, error) {
	name := e.Name()
	sub := fileName.FindStringSubmatch(name)
	if sub == nil || e.IsDir() {
		return Migration{}, fmt.Errorf("migration %s: name must be NNNN_name.sql (lower-case a-z 0-9 _)", name)
	}
	v, err := strconv.Atoi(sub[1])
	if err != nil || v <= 0 {
		return Migration{}, fmt.Errorf("migration %s: version must be a positive number", name)
	}
	b, err := fs.ReadFile(fsys, path.Join(dir, name))
	if err != nil {
		return Migration{}, fmt.Errorf("read migration %s: %w", name, err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return Migration{}, fmt.Errorf("migration %s is empty", name)
	}
	return Migration{Version: v, Name: sub[2], File: name, SQL: string(b)}, nil
}

// Latest is the schema version the set brings a database to (0 for a set
// without migrations).
func (s Set) Latest() (int, error) {
	ms, err := s.Migrations()
	if err != nil || len(ms) == 0 {
		return 0, err
	}
	return ms[len(ms)-1].Version, nil
}

// Apply creates the database named in dsn when it is missing, then applies
// every migration above the recorded version, each in its own transaction
// (a failing one rolls back whole and its error names the file). Concurrent
// runs are serialised by the set's advisory lock. It returns the versions
// it applied, also when it fails part way.
func (s Set) Apply(ctx context.Context, dsn string) ([]int, error) {
	ms, err := s.Migrations()
	if err != nil {
		return nil, err
	}
	if err := EnsureDatabase(ctx, dsn); err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("migrate: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", s.LockKey); err != nil {
		return nil, fmt.Errorf("migrate: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", s.LockKey) //nolint:errcheck // the lock dies with the connection anyway
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+s.Table+` (
		version    INT PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("migrate: create %s: %w", s.Table, err)
	}
	current, err := s.Version(ctx, conn)
	if err != nil {
		return nil, err
	}
	var applied []int
	for _, m := range ms {
		if m.Version <= current {
			continue
		}
		if err := s.apply(ctx, conn, m); err != nil {
			return applied, err
		}
		applied = append(applied, m.Version)
	}
	return applied, nil
}

func (s Set) apply(ctx context.Context, conn *pgx.Conn, m Migration) error {
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO "+s.Table+" (version, name) VALUES ($1, $2)", m.Version, m.Name)
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate: apply %s: %w", m.File, err)
	}
	return nil
}

// Querier is what Version and Pending read through: a *pgx.Conn, a
// *pgxpool.Pool or a pgx.Tx.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Version is the highest applied migration, 0 when the versions table is
// missing. A database that does not exist fails with the server's error
// (SQLSTATE 3D000), which callers may look for.
func (s Set) Version(ctx context.Context, q Querier) (int, error) {
	if !tableName.MatchString(s.Table) {
		return 0, fmt.Errorf("versions table %q: want a lower-case SQL identifier", s.Table)
	}
	var v int
	err := q.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM "+s.Table).Scan(&v)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read schema version from %s: %w", s.Table, err)
	}
	return v, nil
}

// Pending returns the migrations the database behind q still lacks, in
// order; none means it is current. A server refuses to start on a
// database with pending migrations (it is for `migrate` to apply them).
func (s Set) Pending(ctx context.Context, q Querier) ([]Migration, error) {
	ms, err := s.Migrations()
	if err != nil {
		return nil, err
	}
	v, err := s.Version(ctx, q)
	if err != nil {
		return nil, err
	}
	i := sort.Search(len(ms), func(i int) bool { return ms[i].Version > v })
	return ms[i:], nil
}
