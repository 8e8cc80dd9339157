package store

import (
	"context"
	"embed"

	"github.com/corrosion/corrosion/internal/migrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// MigrationsTable records the applied migrations. It is prefixed because
// the database may be shared with the world server's own tables.
const MigrationsTable = "ether_schema_migrations"

// migrateLockKey is the advisory lock that serialises concurrent
// `ether migrate` runs against one database.
const migrateLockKey = 0x657468657201 // "ether\x01"

// Schema is ether's migrations for internal/migrate.
var Schema = migrate.Set{FS: migrationFS, Dir: "migrations", Table: MigrationsTable, LockKey: migrateLockKey}

// LatestVersion is the schema version this binary needs.
func LatestVersion() int {
	v, err := Schema.Latest()
	if err != nil {
		return 0
	}
	return v
}

// Migrate creates the database named in dsn when it is missing, then
// applies every migration it has not seen yet (internal/migrate). It
// returns the versions it applied.
func Migrate(ctx context.Context, dsn string) ([]int, error) {
	return Schema.Apply(ctx, dsn)
}

// schemaVersion is the highest applied migration, 0 when the table is
// missing.
func schemaVersion(ctx context.Context, q migrate.Querier) (int, error) {
	return Schema.Version(ctx, q)
}
