package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// querier is what a read runs on: the pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// queryRows runs sql with args and collects every row with to: the store's
// one shape of a read of many rows. step names the read in its errors
// ("list users"). No rows is an empty slice.
func queryRows[T any](ctx context.Context, db querier, step string, to pgx.RowToFunc[T], sql string, args ...any) ([]T, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", step, err)
	}
	out, err := pgx.CollectRows(rows, to)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", step, err)
	}
	return out, nil
}
