package store

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// RetryOnRace runs an "insert … on conflict do nothing, else select" query
// again when it found no row. Under READ COMMITTED the select half runs on the
// statement's snapshot, so it misses a row that a concurrent transaction
// committed while the insert waited on it; the next statement sees it.
func RetryOnRace[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	var (
		v   T
		err error
	)
	for range 3 {
		v, err = fn()
		if !errors.Is(err, pgx.ErrNoRows) {
			return v, err
		}
		if ctx.Err() != nil {
			return v, ctx.Err()
		}
	}
	return v, err
}

// IsForeignKeyViolation reports a foreign key violation (SQLSTATE 23503).
func IsForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}
