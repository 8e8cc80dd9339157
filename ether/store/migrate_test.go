package store

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/internal/pgtest"
)

// A database migrated by the hand-written runner ether had before
// internal/migrate (testdata: a pg_dump of one at version 4) is recognised:
// nothing is applied again and the store opens on it.
func TestMigrate_RecognisesDatabaseOfTheOldRunner(t *testing.T) {
	ctx := context.Background()
	dump, err := os.ReadFile("testdata/old_runner_v4.sql")
	if err != nil {
		t.Fatal(err)
	}
	dsn := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, string(dump)); err != nil {
		t.Fatalf("restore the old runner's database: %v", err)
	}
	conn.Close(ctx)

	// The dump is at version 4; only migrations added since may apply.
	applied, err := Migrate(ctx, dsn)
	if err != nil || len(applied) != LatestVersion()-4 || (len(applied) > 0 && applied[0] != 5) {
		t.Fatalf("Migrate on the old runner's database applied %v, err %v; want versions 5..%d", applied, err, LatestVersion())
	}
	s, err := New(ctx, Config{DSN: dsn}, testLogger(t))
	if err != nil {
		t.Fatalf("New on the old runner's database: %v", err)
	}
	defer s.Close()
	pending, err := Schema.Pending(ctx, s.pool)
	if err != nil || len(pending) != 0 {
		t.Fatalf("Pending = %v, %v; want none", pending, err)
	}
}
