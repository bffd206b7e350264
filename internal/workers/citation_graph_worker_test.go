package workers_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/evidencefleet/evidencefleet/internal/academic/papers"
	"github.com/evidencefleet/evidencefleet/internal/academic/s2"
	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/harness/cassette"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestCitationGraphWorker works citation_graph jobs through rivertest
// inside a transaction rolled back when each subtest ends; Semantic Scholar
// answers from the recorded session of a paper's references.
func TestCitationGraphWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := cassette.Load(referencesCassette)
	if err != nil {
		t.Fatalf("recorded Semantic Scholar session: %v", err)
	}
	srv := httptest.NewServer(c.Replayer("fields"))
	t.Cleanup(srv.Close)
	client, err := s2.New(s2.Options{BaseURL: srv.URL + "/graph/v1", MinInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	resolver := &papers.Resolver{S2: client}

	type testBundle struct {
		tx         pgx.Tx
		task, page int64
	}
	setup := func(t *testing.T, citations workers.CitationSource) (*rivertest.Worker[jobs.CitationGraphArgs, pgx.Tx], *testBundle) {
		t.Helper()
		tx := pgtest.Tx(t)
		b := &testBundle{tx: tx, task: fixture.Task(t, tx, "Constrained optimization controls the sparsity of neural networks.")}
		src := fixture.PageOf(t, tx, b.task, "https://doi.org/10.0000/source",
			"Sparse neural networks. We study how to train sparse neural networks with constrained optimization and pruning.")
		if _, err := tx.Exec(ctx, `UPDATE pages SET doi = '10.0000/source', s2_paper_id = 'CorpusID:1033682', abstract_only = true WHERE id = $1`, src.ID); err != nil {
			t.Fatal(err)
		}
		b.page = src.ID
		w := workers.NewCitationGraphWorker(store.NewStore(tx), citations, builtin.NewHashEmbedder(256), nil,
			workers.PageSettings{Extract: workers.ExtractConfig{Fragments: extract.FragmentOptions{MaxRunes: 600}, MaxClaimsPerPage: 20}}, nil, nil)
		return rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(store.NewStore(tx), workers.ServerWaits{}, nil, nil)}, w), b
	}
	count := func(t *testing.T, tx pgx.Tx, sql string, args ...any) int {
		t.Helper()
		var n int
		if err := tx.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	output := func(t *testing.T, res *rivertest.WorkResult) workers.CitationOutput {
		t.Helper()
		var out workers.CitationOutput
		if err := json.Unmarshal(res.Job.Output(), &out); err != nil {
			t.Fatalf("output %s: %v", res.Job.Output(), err)
		}
		return out
	}

	t.Run("KeepsTheTopTenOnceWithCitesEdges", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t, resolver)
		args := jobs.CitationGraphArgs{TaskID: b.task, PageID: b.page}
		res, err := w.Work(ctx, t, b.tx, args, nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("work: %v, %+v", err, res)
		}
		out := output(t, res)
		if out.Neighbors != 147 || out.Selected != 10 || out.PagesNew == 0 || out.PagesNew > 10 || out.EdgesNew != out.PagesNew {
			t.Errorf("output %+v: want 147 neighbors, 10 selected, 1–10 new pages each with its cites edge", out)
		}
		var pages int
		if err := b.tx.QueryRow(ctx, `SELECT count(*) FROM task_pages WHERE task_id = $1 AND reason = 'citation' AND source_page_id = $2`,
			b.task, b.page).Scan(&pages); err != nil || pages != out.PagesNew {
			t.Errorf("%d cited task pages (%v), want %d", pages, err, out.PagesNew)
		}
		rivertest.RequireInsertedTx[*riverpgxv5.Driver](ctx, t, b.tx, &jobs.VerifyNLIArgs{}, nil)
		again, err := w.Work(ctx, t, b.tx, args, nil)
		if err != nil {
			t.Fatal(err)
		}
		if o := output(t, again); o.PagesNew != 0 || o.EdgesNew != 0 {
			t.Errorf("a second run created pages or edges: %+v", o)
		}
	})

	t.Run("WithoutAnAcademicAPIItCompletesAsSkipped", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t, nil)
		res, err := w.Work(ctx, t, b.tx, jobs.CitationGraphArgs{TaskID: b.task, PageID: b.page}, nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("work: %v, %+v", err, res)
		}
		if out := output(t, res); out.Skipped == "" {
			t.Errorf("output %+v: want the reason it was skipped", out)
		}
	})

	// Task state and ownership first: neither job asks the academic API.
	t.Run("PageOfAnotherTaskOrAStoppedTaskAsksNothing", func(t *testing.T) {
		t.Parallel()
		asked := &countingCitations{CitationSource: resolver}
		w, b := setup(t, asked)
		other := fixture.Task(t, b.tx, "Another organization's task.")
		stopped := fixture.Task(t, b.tx, "A stopped task.")
		if _, err := b.tx.Exec(ctx, `UPDATE tasks SET status = 'stopped' WHERE id = $1`, stopped); err != nil {
			t.Fatal(err)
		}
		for _, args := range []jobs.CitationGraphArgs{{TaskID: other, PageID: b.page}, {TaskID: stopped, PageID: b.page}} {
			res, err := w.Work(ctx, t, b.tx, args, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.EventKind != river.EventKindJobCancelled {
				t.Errorf("%+v: event %v, want cancelled", args, res.EventKind)
			}
		}
		if n := asked.n.Load(); n != 0 {
			t.Errorf("the academic API was asked %d times", n)
		}
		if n := count(t, b.tx, `SELECT count(*) FROM task_pages WHERE task_id IN ($1, $2)`, other, stopped); n != 0 {
			t.Errorf("%d task pages written to the other tasks", n)
		}
	})

	// An older job of another task asking the APIs for the same paper goes
	// on; this one waits for its record instead of asking them again.
	t.Run("WaitsForAnOlderJobAskingForThePaper", func(t *testing.T) {
		t.Parallel()
		asked := &countingCitations{CitationSource: resolver}
		w, b := setup(t, asked)
		other := fixture.Task(t, b.tx, "Another task reaching the same paper.")
		var older int64
		if err := b.tx.QueryRow(ctx, `INSERT INTO river_job (kind, args, queue, priority, max_attempts, state, attempt, attempted_at)
			VALUES ('citation_graph', jsonb_build_object('task_id', $1::bigint, 'page_id', $2::bigint), 'citation', 4, 10, 'running', 1, now())
			RETURNING id`, other, b.page).Scan(&older); err != nil {
			t.Fatal(err)
		}
		args := jobs.CitationGraphArgs{TaskID: b.task, PageID: b.page}
		res, err := w.Work(ctx, t, b.tx, args, nil)
		if err != nil || res.EventKind != river.EventKindJobSnoozed {
			t.Fatalf("with an older job running on the paper: %v, %+v; want snoozed", err, res)
		}
		if n := asked.n.Load(); n != 0 {
			t.Errorf("the academic API was asked %d times while the older job runs", n)
		}
		if _, err := b.tx.Exec(ctx, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE id = $1`, older); err != nil {
			t.Fatal(err)
		}
		res, err = w.Work(ctx, t, b.tx, args, nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("once the older job ended: %v, %+v; want completed", err, res)
		}
		if out := output(t, res); !out.AskedAPIs || asked.n.Load() != 1 {
			t.Errorf("output %+v, %d API calls: want the APIs asked once the older job ended without a record", out, asked.n.Load())
		}
	})

	t.Run("MissingPageIsCancelled", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t, resolver)
		res, err := w.Work(ctx, t, b.tx, jobs.CitationGraphArgs{TaskID: b.task, PageID: b.page + 1000}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.EventKind != river.EventKindJobCancelled {
			t.Errorf("event %v, want cancelled", res.EventKind)
		}
	})
}

// countingCitations counts the Neighbors calls it passes on.
type countingCitations struct {
	workers.CitationSource
	n atomic.Int32
}

func (c *countingCitations) Neighbors(ctx context.Context, ref papers.Ref, max int) ([]papers.Neighbor, error) {
	c.n.Add(1)
	return c.CitationSource.Neighbors(ctx, ref, max)
}
