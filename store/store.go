// Package store holds all SQL of evidencefleet: the sqlc-generated queries
// (store/queries/*.sql → *.gen.go), transactions, and the posterior
// recomputation. Pure logic lives elsewhere (internal/evidence); store only
// moves rows.
package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store is the entry point to the database.
type Store struct {
	Pool *pgxpool.Pool
	*Queries
}

// NewStore wraps a pool.
func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{Pool: pool, Queries: New(pool)}
}

// InTx runs fn in one transaction and commits it when fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(tx pgx.Tx, q *Queries) error) error {
	tx, err := s.Pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
	if err := fn(tx, s.WithTx(tx)); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// IsNotFound reports whether err means "no row".
func IsNotFound(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
