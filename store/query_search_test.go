package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestWriteQuerySearch: a query target's one write registers its results
// once the task's row is locked (never on a stopped task), marks the target
// searched and records the event with the counts; a registration that
// fails leaves the target as it was.
func TestWriteQuerySearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type testBundle struct {
		tx     pgx.Tx
		q      *store.Queries
		task   int64
		target int64
	}
	setup := func(t *testing.T) testBundle {
		t.Helper()
		tx := pgtest.Tx(t)
		q := store.New(tx)
		task := fixture.Task(t, tx, "Queries find pages.")
		tgt, err := q.EnsureTarget(ctx, store.EnsureTargetParams{TaskID: task, Kind: "query", Value: "sea ice"})
		if err != nil {
			t.Fatal(err)
		}
		return testBundle{tx: tx, q: q, task: task, target: tgt.ID}
	}
	targetState := func(t *testing.T, b testBundle) (status, stage string) {
		t.Helper()
		if err := b.tx.QueryRow(ctx, `SELECT status, stage FROM targets WHERE id = $1`, b.target).Scan(&status, &stage); err != nil {
			t.Fatal(err)
		}
		return status, stage
	}

	t.Run("registered and searched", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		seen := store.TargetRef{Kind: "url", Value: "https://known.example.org/"}
		if _, err := b.q.EnsureTargets(ctx, store.EnsureTargetsParams{TaskID: b.task, Kinds: []string{seen.Kind}, Vals: []string{seen.Value}, Via: store.ViaUser}); err != nil {
			t.Fatal(err)
		}
		fetch := []store.TargetRef{{Kind: "url", Value: "https://a.example.org/"}, {Kind: "doi", Value: "10.1/x"}, {Kind: "url", Value: "https://b.example.org/"}, seen}
		deferred := []store.TargetRef{{Kind: "url", Value: "https://later.example.org/"}}
		out, err := b.q.WriteQuerySearch(ctx, store.QuerySearch{TaskID: b.task, TargetID: b.target, Query: "sea ice", Results: 4,
			Fetch: fetch, Deferred: deferred})
		if err != nil {
			t.Fatal(err)
		}
		if out != (store.QuerySearched{Registered: 3, Known: 1}) {
			t.Errorf("%+v, want 3 results new to the task and 1 known", out)
		}
		var viaQuery, stillUser, later int
		if err := b.tx.QueryRow(ctx, `SELECT count(*) FILTER (WHERE via = 'query' AND source_target_id = $2 AND stage IS DISTINCT FROM 'deferred'),
			count(*) FILTER (WHERE value = $3 AND via = 'user'), count(*) FILTER (WHERE stage = 'deferred')
			FROM targets WHERE task_id = $1`, b.task, b.target, seen.Value).Scan(&viaQuery, &stillUser, &later); err != nil {
			t.Fatal(err)
		}
		if viaQuery != 3 || stillUser != 1 || later != 1 {
			t.Errorf("targets: %d via the query, known one via user %d, deferred %d; want 3, 1, 1", viaQuery, stillUser, later)
		}
		if status, stage := targetState(t, b); status != "extracted" || stage != "searched" {
			t.Errorf("target %s/%s, want extracted/searched", status, stage)
		}
		var query string
		var results, registered, known int
		if err := b.tx.QueryRow(ctx, `SELECT payload->>'query', (payload->>'results')::int, (payload->>'registered')::int,
			(payload->>'known')::int FROM event_log WHERE task_id = $1 AND event_type = 'query_searched'`, b.task).
			Scan(&query, &results, &registered, &known); err != nil {
			t.Fatal(err)
		}
		if query != "sea ice" || results != 4 || registered != 3 || known != 1 {
			t.Errorf("event %q %d %d %d", query, results, registered, known)
		}
	})
	t.Run("nothing to register", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		out, err := b.q.WriteQuerySearch(ctx, store.QuerySearch{TaskID: b.task, TargetID: b.target, Query: "sea ice"})
		if err != nil || out != (store.QuerySearched{}) {
			t.Fatalf("%+v %v", out, err)
		}
		if status, stage := targetState(t, b); status != "extracted" || stage != "searched" {
			t.Errorf("target %s/%s, want extracted/searched", status, stage)
		}
	})
	t.Run("stopped task", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		if _, err := b.tx.Exec(ctx, `UPDATE tasks SET status = 'stopped' WHERE id = $1`, b.task); err != nil {
			t.Fatal(err)
		}
		_, err := b.q.WriteQuerySearch(ctx, store.QuerySearch{TaskID: b.task, TargetID: b.target, Query: "sea ice",
			Fetch: []store.TargetRef{{Kind: "url", Value: "https://a.example.org/"}}})
		if !errors.Is(err, errs.ErrTaskStopped) {
			t.Errorf("%v, want the task stopped", err)
		}
	})
	t.Run("registration fails", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		_, err := b.q.WriteQuerySearch(ctx, store.QuerySearch{TaskID: b.task, TargetID: b.target, Query: "sea ice",
			Fetch: []store.TargetRef{{Kind: "nonsense", Value: "x"}}}) // the targets' kind check refuses it
		if err == nil {
			t.Fatal("a target of no known kind was registered")
		}
	})
}
