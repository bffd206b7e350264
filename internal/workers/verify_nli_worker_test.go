package workers_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/taskindex"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestVerifyNLIWorker works verify_nli jobs through rivertest inside a
// transaction rolled back when each subtest ends, on fixtures: a task with
// one hypothesis and embedded fragments on two other sites.
func TestVerifyNLIWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	embedder := builtin.NewHashEmbedder(256)

	type testBundle struct {
		tx    pgx.Tx
		task  int64
		claim int64
		pages []fixture.Page
		nli   *countingNLI
	}
	setup := func(t *testing.T, embed bool) (*rivertest.Worker[jobs.VerifyNLIArgs, pgx.Tx], *testBundle) {
		t.Helper()
		tx := pgtest.Tx(t)
		b := &testBundle{tx: tx}
		b.task = fixture.Task(t, tx, "Glaciers are retreating worldwide.")
		b.claim = fixture.Claim(t, tx, b.task, "Glaciers are retreating worldwide because temperatures are rising.")
		b.pages = []fixture.Page{
			fixture.PageOf(t, tx, b.task, "https://glaciers.example.org/retreat",
				"Glaciers are retreating worldwide because global temperatures are rising.",
				"The Rhône Glacier lost a large part of its volume since 1980."),
			fixture.PageOf(t, tx, b.task, "https://blog.example.net/fine",
				"Glaciers are not retreating and temperatures are not rising in the mountains."),
		}
		if embed {
			for _, p := range b.pages {
				for i, id := range p.Fragments {
					vec, err := embedder.Embed(ctx, []string{fragmentText(t, tx, id)})
					if err != nil {
						t.Fatal(err)
					}
					fixture.Embed(t, tx, p.Fragments[i], models.PassageModel(embedder), vec[0])
				}
			}
		}
		st := store.NewStore(tx)
		verify := workers.VerifyConfigFrom(config.Defaults(), builtin.HashEmbedderMinSimilarity)
		b.nli = &countingNLI{NLI: learnedNLI(t)}
		w := workers.NewVerifyNLIWorker(st, embedder, b.nli, workers.NewRecaller(st, embedder, taskindex.NewCache(16<<20), verify.Recall(), nil), verify, nil, nil)
		return rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(store.NewStore(tx), workers.ServerWaits{}, nil, nil)}, w), b
	}
	nliEdges := func(t *testing.T, tx pgx.Tx, claim int64) int {
		t.Helper()
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM edges WHERE target_type = 'claim' AND target_id = $1
			AND relation IN ('supports', 'refutes', 'neutral')`, claim).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("JudgesEachPairOnceAndRecomputesThePosterior", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t, true)
		res, err := w.Work(ctx, t, b.tx, wholeTask(t, b.tx, b.task), nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("work: %v, %+v", err, res)
		}
		n := nliEdges(t, b.tx, b.claim)
		if n == 0 {
			t.Fatal("no NLI edges for the hypothesis")
		}
		var alpha, beta float64
		var supporting, refuting int
		if err := b.tx.QueryRow(ctx, `SELECT alpha, beta, supporting_count, refuting_count FROM claims WHERE id = $1`, b.claim).
			Scan(&alpha, &beta, &supporting, &refuting); err != nil {
			t.Fatal(err)
		}
		if supporting+refuting == 0 || alpha+beta <= 2 {
			t.Errorf("posterior α=%v β=%v (supports %d, refutes %d): the judged pairs did not reach it", alpha, beta, supporting, refuting)
		}
		if _, err := w.Work(ctx, t, b.tx, wholeTask(t, b.tx, b.task), nil); err != nil {
			t.Fatal(err)
		}
		if again := nliEdges(t, b.tx, b.claim); again != n {
			t.Errorf("a rerun with nothing new wrote %d more edges", again-n)
		}
	})

	t.Run("WaitsForMissingEmbeddings", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t, false)
		res, err := w.Work(ctx, t, b.tx, wholeTask(t, b.tx, b.task), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.EventKind != river.EventKindJobSnoozed {
			t.Errorf("event %v, want snoozed while fragments lack embeddings", res.EventKind)
		}
		if n := nliEdges(t, b.tx, b.claim); n != 0 {
			t.Errorf("%d edges judged without embeddings", n)
		}
	})

	t.Run("AnUnjudgeablePairLeavesTheRestJudged", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t, true)
		b.nli.unjudgeable.Store(true)
		res, err := w.Work(ctx, t, b.tx, wholeTask(t, b.tx, b.task), nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("work: %v, %+v", err, res)
		}
		var out workers.VerifyOutput
		if err := json.Unmarshal(res.Job.Output(), &out); err != nil {
			t.Fatal(err)
		}
		edges := nliEdges(t, b.tx, b.claim)
		if out.Unjudgeable == 0 || edges == 0 {
			t.Fatalf("output %+v with %d edges: want unjudgeable pairs counted and the others judged", out, edges)
		}
		// A later run asks the model again about the pairs it could not judge.
		b.nli.unjudgeable.Store(false)
		if _, err := w.Work(ctx, t, b.tx, wholeTask(t, b.tx, b.task), nil); err != nil {
			t.Fatal(err)
		}
		if more := nliEdges(t, b.tx, b.claim) - edges; more == 0 {
			t.Errorf("the unjudgeable pairs were never judged again (%d of them)", out.Unjudgeable)
		}
	})

	t.Run("StoppedTaskIsCancelled", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t, true)
		if _, err := b.tx.Exec(ctx, `UPDATE tasks SET status = 'stopped' WHERE id = $1`, b.task); err != nil {
			t.Fatal(err)
		}
		res, err := w.Work(ctx, t, b.tx, wholeTask(t, b.tx, b.task), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.EventKind != river.EventKindJobCancelled || nliEdges(t, b.tx, b.claim) != 0 {
			t.Errorf("event %v: a stopped task must cancel the job and write nothing", res.EventKind)
		}
		if n := b.nli.pairs.Load(); n != 0 {
			t.Errorf("the NLI model judged %d pairs of a stopped task", n)
		}
	})
}

// fragmentText reads a fragment's text.
func fragmentText(t *testing.T, tx pgx.Tx, id int64) string {
	t.Helper()
	var s string
	if err := tx.QueryRow(context.Background(), `SELECT text FROM fragments WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// countingNLI counts the pairs it passes on to judge; with unjudgeable set,
// the first pair of each call gets no usable answer.
type countingNLI struct {
	models.NLI
	pairs       atomic.Int64
	unjudgeable atomic.Bool
}

func (c *countingNLI) Judge(ctx context.Context, pairs []models.Pair) ([]models.Judgement, error) {
	c.pairs.Add(int64(len(pairs)))
	js, err := c.NLI.Judge(ctx, pairs)
	if err == nil && len(js) > 0 && c.unjudgeable.Load() {
		js[0] = models.Judgement{Label: models.Unjudgeable}
	}
	return js, err
}
