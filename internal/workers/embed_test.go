package workers_test

import (
	"context"
	"slices"
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
		w := workers.NewEmbedWorker(store.NewStore(tx), embedder, workers.EmbedConfig{}, nil)
		return rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(store.NewStore(tx), workers.ServerWaits{}, nil, nil)}, w), &testBundle{tx: tx, task: task, page: page}
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
		if want := models.PassageModel(embedder); v != nil && (model == nil || *model != want) {
			t.Errorf("fragment %d embedded by %v, want %s", id, model, want)
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
		// The fragment with its page's title (the fixture's title is the URL).
		vecs, err := embedder.Embed(ctx, []string{"Glaciers are retreating worldwide.", "https://glaciers.example.org/retreat"})
		if err != nil {
			t.Fatal(err)
		}
		want := models.PassageVector(vecs[0], vecs[1])
		got := stored(t, b.tx, b.page.Fragments[0])
		if !slices.Equal(got, want) {
			t.Errorf("stored vector differs from the passage vector of text and title (%d dims)", len(got))
		}
		if slices.Equal(got, vecs[0]) {
			t.Error("stored vector is the text's alone")
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

	t.Run("TextOnlyEmbeddingsAreEmbeddedAgain", func(t *testing.T) {
		t.Parallel()
		// A graph embedded before passages carried their title holds
		// vectors under the bare model id: they count as not embedded and
		// are replaced, never ranked beside passage vectors.
		w, b := setup(t)
		old, err := embedder.Embed(ctx, []string{"Glaciers are retreating worldwide."})
		if err != nil {
			t.Fatal(err)
		}
		fixture.Embed(t, b.tx, b.page.Fragments[0], embedder.Model(), old[0])
		st := store.NewStore(b.tx)
		state, err := st.TaskVerifyState(ctx, store.TaskVerifyStateParams{TaskID: b.task, EmbedModel: models.PassageModel(embedder)})
		if err != nil {
			t.Fatal(err)
		}
		if state.NotEmbedded != 2 {
			t.Errorf("%d fragments not embedded, want 2: a text-only vector is not a passage vector", state.NotEmbedded)
		}
		if _, err := w.Work(ctx, t, b.tx, jobs.EmbedArgs{TaskID: b.task, PageVersionID: b.page.VersionID}, nil); err != nil {
			t.Fatal(err)
		}
		if got := stored(t, b.tx, b.page.Fragments[0]); slices.Equal(got, old[0]) {
			t.Error("the text-only vector was kept")
		}
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
