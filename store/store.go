// Package store holds all SQL of evidencefleet: one queries file per job
// kind (store/queries/<kind>.sql → sqlc's *.gen.go) beside that kind's one
// write (store/<kind>.go: WritePage, or WriteQuerySearch for a query
// target; WriteJudgements, WriteEmbeddings, WriteRanking,
// WriteCitationGraph, Cleanup), transactions, and the posterior
// recomputation. Pure logic lives elsewhere (internal/evidence);
// store only moves rows.
//
// Lock order. Every transaction that takes page keys and the task row takes
// them in one order:
//
//  1. the advisory locks of every page key it will touch (URLs and ids,
//     lockResourceKeys), all at once, sorted, at most MaxLockKeys;
//  2. then the task row (LockActiveTask: FOR UPDATE);
//  3. then rows, each kind in a stable order (NLI edges by claim and
//     fragment).
//
// Nothing may come before step 2 that locks the task row in a weaker mode:
// inserting a row whose foreign key names the task (a target, an event)
// takes a key-share lock on it, and two such transactions then deadlock on
// their FOR UPDATE. target_queue registers its target in its own statement
// for that reason. Cleanup locks the task row, then orphan rows with SKIP
// LOCKED (it never waits for a writer). TestWritersShareOneLockOrder runs
// the writers concurrently and finds no deadlock.
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

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

// PoolConfig parses a connection string for a pool whose statements are
// planned when they run (pgx's QueryExecModeCacheDescribe: unnamed
// statements, their result types cached), unless the string sets
// default_query_exec_mode itself. Unnamed statements pass a
// transaction-mode pooler such as PgBouncer, named prepared ones do not.
func PoolConfig(url string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(url, "default_query_exec_mode") {
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	}
	return cfg, nil
}
