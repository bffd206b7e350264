package fleet_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/fleet"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
)

// TestPoolProtections: the worker's connections run with the configured
// statement, lock and idle-in-transaction timeouts, and a URL that sets one
// itself keeps its own; a transaction left idle past its timeout is ended by
// the server.
func TestPoolProtections(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := config.Defaults()
	cfg.DatabaseURL = pgtest.URL(t)
	cfg.DBIdleInTxTimeout = 300 * time.Millisecond
	pool, err := fleet.NewPool(ctx, cfg, metrics.New())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	for param, want := range map[string]string{"statement_timeout": "5min", "lock_timeout": "1min", "idle_in_transaction_session_timeout": "300ms"} {
		var got string
		if err := pool.QueryRow(ctx, "SHOW "+param).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %s, want %s", param, got, want)
		}
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // idle in the transaction past its 300 ms
	if _, err := tx.Exec(ctx, "SELECT 1"); err == nil {
		t.Error("a transaction idle past idle_in_transaction_session_timeout went on")
	}
	_ = tx.Rollback(ctx)

	u, err := url.Parse(cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("lock_timeout", "2500")
	u.RawQuery = q.Encode()
	cfg.DatabaseURL = u.String()
	own, err := fleet.NewPool(ctx, cfg, metrics.New())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(own.Close)
	var got string
	if err := own.QueryRow(ctx, "SHOW lock_timeout").Scan(&got); err != nil || got != "2500ms" {
		t.Errorf("lock_timeout set in the URL: %q (%v), want 2500ms", got, err)
	}
}

// TestPoolPlansEveryStatement: the worker's connections prepare no named
// statement, so Postgres plans each run for its arguments and the tables as
// they are (no generic plan kept for the connection's life); a URL that sets
// default_query_exec_mode keeps its own.
func TestPoolPlansEveryStatement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	prepared := func(databaseURL string) int {
		t.Helper()
		cfg := config.Defaults()
		cfg.DatabaseURL = databaseURL
		pool, err := fleet.NewPool(ctx, cfg, metrics.New())
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		conn, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		for i := range 10 {
			var n int
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE relpages >= $1", i).Scan(&n); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%relpages >=%' AND statement NOT LIKE '%pg_prepared_statements%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	base := pgtest.URL(t)
	if n := prepared(base); n != 0 {
		t.Errorf("%d named prepared statements on a worker connection, want none", n)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("default_query_exec_mode", "cache_statement")
	u.RawQuery = q.Encode()
	if n := prepared(u.String()); n != 1 {
		t.Errorf("default_query_exec_mode=cache_statement in the URL: %d prepared statements, want 1", n)
	}
}
