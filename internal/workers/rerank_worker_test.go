package workers_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestRerankWorker works rerank jobs through rivertest inside a transaction
// rolled back when each subtest ends, on a task of three embedded pages.
func TestRerankWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	embedder := builtin.NewHashEmbedder(256)

	type testBundle struct {
		tx   pgx.Tx
		task int64
	}
	setup := func(t *testing.T) (*rivertest.Worker[jobs.RerankArgs, pgx.Tx], *testBundle) {
		t.Helper()
		tx := pgtest.Tx(t)
		b := &testBundle{tx: tx, task: fixture.Task(t, tx, "Glaciers are retreating worldwide.")}
		for _, p := range []fixture.Page{
			fixture.PageOf(t, tx, b.task, "https://glaciers.example.org/retreat",
				"Glaciers are retreating worldwide because global temperatures are rising.",
				"The Rhône Glacier lost a large part of its volume since 1980."),
			fixture.PageOf(t, tx, b.task, "https://ice.example.net/alps", "Alpine glaciers retreat faster every decade."),
			fixture.PageOf(t, tx, b.task, "https://cooking.example.com/bread", "Bread rises when yeast ferments the dough."),
		} {
			for _, id := range p.Fragments {
				vec, err := embedder.Embed(ctx, []string{fragmentText(t, tx, id)})
				if err != nil {
					t.Fatal(err)
				}
				fixture.Embed(t, tx, id, models.PassageModel(embedder), vec[0])
			}
		}
		w := workers.NewRerankWorker(store.NewStore(tx), embedder, builtin.NewBM25Reranker(), workers.RerankConfig{}, nil)
		return rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(store.NewStore(tx), workers.ServerWaits{}, nil, nil)}, w), b
	}
	ranking := func(t *testing.T, tx pgx.Tx, task int64) (rows int, exact bool) {
		t.Helper()
		err := tx.QueryRow(ctx, `SELECT count(*), bool_and(f.text = substring(v.content FROM r.start_char + 1 FOR r.end_char - r.start_char))
			FROM task_rankings r JOIN fragments f ON f.id = r.fragment_id JOIN page_versions v ON v.id = r.page_version_id
			WHERE r.task_id = $1`, task).Scan(&rows, &exact)
		if err != nil {
			t.Fatal(err)
		}
		return rows, exact
	}

	t.Run("RanksTheHypothesisAndReplacesTheRanking", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t)
		res, err := w.Work(ctx, t, b.tx, jobs.RerankArgs{TaskID: b.task, TopK: 2}, nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("work: %v, %+v", err, res)
		}
		if rows, exact := ranking(t, b.tx, b.task); rows != 2 || !exact {
			t.Errorf("ranking of %d rows (exact spans: %v), want top_k 2 with exact spans", rows, exact)
		}
		var top string
		if err := b.tx.QueryRow(ctx, `SELECT f.text FROM task_rankings r JOIN fragments f ON f.id = r.fragment_id
			WHERE r.task_id = $1 ORDER BY r.rank LIMIT 1`, b.task).Scan(&top); err != nil {
			t.Fatal(err)
		}
		if top == "Bread rises when yeast ferments the dough." {
			t.Error("the unrelated fragment ranks first")
		}
		if _, err := w.Work(ctx, t, b.tx, jobs.RerankArgs{TaskID: b.task, TopK: 3}, nil); err != nil {
			t.Fatal(err)
		}
		if rows, _ := ranking(t, b.tx, b.task); rows != 3 {
			t.Errorf("after a rerun with top_k 3 the ranking has %d rows, want the old one replaced by 3", rows)
		}
	})

	t.Run("MissingTaskIsCancelled", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t)
		res, err := w.Work(ctx, t, b.tx, jobs.RerankArgs{TaskID: b.task + 1000}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.EventKind != river.EventKindJobCancelled {
			t.Errorf("event %v, want cancelled", res.EventKind)
		}
	})
}
