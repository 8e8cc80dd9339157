// Package accounttest gives the world's tests a real account store: a
// fresh, migrated PostgreSQL database (internal/pgtest) with autoregister
// on and cheap hashes. Test code only (internal/deptest keeps it out of
// shipped binaries).
package accounttest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/worldsrv/account"
)

// New returns the store, closed when the test ends.
func New(t *testing.T) *account.Store {
	t.Helper()
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	if _, err := account.Migrate(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s, err := account.Open(ctx, pool, account.Options{Autoregister: true,
		Params: account.Params{Memory: 64, Time: 1, Threads: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
