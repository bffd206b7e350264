package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestEnsureTargetWaitsForConcurrentRegistration registers a target in an
// open transaction, then the same target from another connection, whose
// insert waits on the first; when the first commits, the second returns
// the committed row (its statement's snapshot, taken before the wait, does
// not show it), and when the first rolls back, the second inserts its own.
func TestEnsureTargetWaitsForConcurrentRegistration(t *testing.T) {
	t.Parallel()
	// Each case holds two connections and polls on a third.
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	task := fixture.Task(t, pool, "Targets are registered once.")
	for _, tc := range []struct {
		name   string
		commit bool
	}{{"first commits", true}, {"first rolls back", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			params := store.EnsureTargetParams{TaskID: task, Kind: "url", Value: "https://race.example.org/" + tc.name}
			second, err := pool.Acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var running sync.WaitGroup
			t.Cleanup(func() { running.Wait(); second.Release() })
			first, err := pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = first.Rollback(ctx) }) // runs first: ends the wait of a failed test
			mine, err := store.New(first).EnsureTarget(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			var firstPID, secondPID uint32
			if err := first.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&firstPID); err != nil {
				t.Fatal(err)
			}
			if err := second.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&secondPID); err != nil {
				t.Fatal(err)
			}
			var got store.EnsureTargetRow
			var gotErr error
			done := make(chan struct{})
			running.Go(func() {
				defer close(done)
				got, gotErr = store.New(second.Conn()).EnsureTarget(ctx, params)
			})
			waitBlockedBy(t, pool, secondPID, firstPID, done)
			if tc.commit {
				err = first.Commit(ctx)
			} else {
				err = first.Rollback(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
			<-done
			if gotErr != nil {
				t.Fatalf("registering a target another transaction is registering: %v", gotErr)
			}
			if tc.commit && got.ID != mine.ID {
				t.Errorf("registered as %d, the committed target is %d", got.ID, mine.ID)
			}
			var stored int64
			if err := pool.QueryRow(ctx, `SELECT id FROM targets WHERE task_id = $1 AND value = $2`, task, params.Value).Scan(&stored); err != nil || stored != got.ID {
				t.Errorf("stored target %d (%v), returned %d", stored, err, got.ID)
			}
		})
	}
}

// waitBlockedBy returns once backend pid waits for a lock that backend
// holder holds; it fails the test when the call in flight ends first.
func waitBlockedBy(t *testing.T, pool *pgxpool.Pool, pid, holder uint32, done <-chan struct{}) {
	t.Helper()
	for {
		var blocked bool
		if err := pool.QueryRow(context.Background(), `SELECT $2::int = ANY(pg_blocking_pids($1::int))`, pid, holder).Scan(&blocked); err != nil {
			t.Fatal(err)
		}
		if blocked {
			return
		}
		select {
		case <-done:
			t.Fatal("the second registration ended without waiting for the first")
		case <-time.After(5 * time.Millisecond): // poll again
		}
	}
}
