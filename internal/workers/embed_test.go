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
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestEmbedWorker works embed jobs through rivertest inside a transaction
// that is rolled back when each subtest ends.
func TestEmbedWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	embedder := builtin.NewHashEmbedder(256)

	type testBundle struct {
		tx   pgx.Tx
		task int64
		page fixture.Page
	}
	setup := func(t *testing.T) (*rivertest.Worker[jobs.EmbedArgs, pgx.Tx], *testBundle) {
		t.Helper()
		tx := pgtest.Tx(t)
		task := fixture.Task(t, tx, "Glaciers are retreating.")
		page := fixture.PageOf(t, tx, task, "https://glaciers.example.org/retreat",
			"Glaciers are retreating worldwide.", "The Rhône Glacier lost a large part of its volume.")
		w := &workers.EmbedWorker{Store: store.NewStore(tx), Embedder: embedder}
		return rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(workers.ServerWaits{})}, w), &testBundle{tx: tx, task: task, page: page}
	}
	stored := func(t *testing.T, tx pgx.Tx, id int64) []float32 {
		t.Helper()
		var b []byte
		var model *string
		if err := tx.QueryRow(ctx, `SELECT embedding, embed_model FROM fragments WHERE id = $1`, id).Scan(&b, &model); err != nil {
			t.Fatal(err)
		}
		v, err := store.DecodeVector(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v != nil && (model == nil || *model != embedder.Model()) {
			t.Errorf("fragment %d embedded by %v, want %s", id, model, embedder.Model())
		}
		return v
	}

	t.Run("EmbedsTheListedFragmentsAndSignalsVerify", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t)
		res, err := w.Work(ctx, t, b.tx, jobs.EmbedArgs{TaskID: b.task, FragmentIDs: b.page.Fragments[:1]}, nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("work: %v, event %v", err, res)
		}
		want, err := embedder.Embed(ctx, []string{"Glaciers are retreating worldwide."})
		if err != nil {
			t.Fatal(err)
		}
		got := stored(t, b.tx, b.page.Fragments[0])
		if len(got) != 256 || got[0] != want[0][0] || got[255] != want[0][255] {
			t.Errorf("stored vector differs from the embedder's (%d dims)", len(got))
		}
		if v := stored(t, b.tx, b.page.Fragments[1]); v != nil {
			t.Error("a fragment not listed was embedded")
		}
		rivertest.RequireInsertedTx[*riverpgxv5.Driver](ctx, t, b.tx, &jobs.VerifyNLIArgs{}, &rivertest.RequireInsertedOpts{Queue: jobs.QueueNLI})
	})

	t.Run("PageVersionEmbedsItsFragments", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t)
		if _, err := w.Work(ctx, t, b.tx, jobs.EmbedArgs{TaskID: b.task, PageVersionID: b.page.VersionID}, nil); err != nil {
			t.Fatal(err)
		}
		for _, id := range b.page.Fragments {
			if stored(t, b.tx, id) == nil {
				t.Errorf("fragment %d of the version was not embedded", id)
			}
		}
	})

	t.Run("RerunEmbedsNothingAndSignalsNothing", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t)
		args := jobs.EmbedArgs{TaskID: b.task, FragmentIDs: b.page.Fragments}
		if _, err := w.Work(ctx, t, b.tx, args, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := b.tx.Exec(ctx, `DELETE FROM river_job WHERE kind = $1`, jobs.KindVerifyNLI); err != nil {
			t.Fatal(err)
		}
		res, err := w.Work(ctx, t, b.tx, args, nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("rerun: %v, event %v", err, res)
		}
		rivertest.RequireNotInsertedTx[*riverpgxv5.Driver](ctx, t, b.tx, &jobs.VerifyNLIArgs{}, nil)
	})

	t.Run("BadArgsCancelOnce", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t)
		res, err := w.Work(ctx, t, b.tx, jobs.EmbedArgs{TaskID: b.task}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.EventKind != river.EventKindJobCancelled {
			t.Errorf("event %v, want cancelled", res.EventKind)
		}
	})
}
