package account

import (
	"context"
	"embed"

	"github.com/corrosion/corrosion/internal/migrate"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Schema is the world's migrations: tables prefixed world_, versions in
// world_schema_migrations, so the database may be the one ether uses.
var Schema = migrate.Set{FS: migrationFS, Dir: "migrations", Table: "world_schema_migrations", LockKey: 0x776f726c6401} // "world\x01"

// Migrate creates the database named in dsn when it is missing and applies
// the world's pending migrations. It returns the versions it applied.
func Migrate(ctx context.Context, dsn string) ([]int, error) {
	return Schema.Apply(ctx, dsn)
}
