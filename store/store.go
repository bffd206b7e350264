// Package store holds all SQL of evidencefleet: one queries file per job
// kind (store/queries/<kind>.sql → sqlc's *.gen.go) beside that kind's one
// write (store/<kind>.go: WritePage, WriteJudgements, WriteEmbeddings,
// WriteRanking, WriteCitationGraph, Cleanup), transactions, and the
// posterior recomputation. Every writer takes its locks in one order: the
// advisory locks of page keys, all at once and sorted, then the task row.
// Pure logic lives elsewhere (internal/evidence); store only moves rows.
package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is what a Store runs on: a pool in the worker, or a transaction in a
// test, whose work is then rolled back with it (InTx nests as a savepoint).
type DB interface {
	DBTX
	Begin(ctx context.Context) (pgx.Tx, error)
}

var (
	_ DB = (*pgxpool.Pool)(nil)
	_ DB = pgx.Tx(nil)
)

// Store is the entry point to the database.
type Store struct {
	db DB
	*Queries
}

// NewStore wraps a pool, or a transaction (tests).
func NewStore(db DB) *Store {
	return &Store{db: db, Queries: New(db)}
}

// DB is the pool or transaction the store runs on.
func (s *Store) DB() DB { return s.db }

// InTx runs fn in one transaction and commits it when fn returns nil. On a
// Store made from a transaction it runs in a savepoint of it.
func (s *Store) InTx(ctx context.Context, fn func(tx pgx.Tx, q *Queries) error) error {
	tx, err := s.db.Begin(ctx)
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
