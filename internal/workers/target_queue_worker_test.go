package workers_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestTargetQueueWorker works target_queue jobs through rivertest inside a
// transaction rolled back when each subtest ends, fetching from a replay
// archive of one page.
func TestTargetQueueWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const pageURL = "https://glaciers.example.org/retreat"
	dir := t.TempDir()
	if err := corpus.WriteArchive(dir, []corpus.Page{testfleet.Page(pageURL, "Retreat of glaciers",
		"Glaciers are retreating worldwide because global temperatures have risen by about 1.1 °C since 1850.",
		"The Rhône Glacier lost a large part of its volume between 1980 and 2020, according to Swiss measurements.")}); err != nil {
		t.Fatal(err)
	}
	fetcher, err := crawl.New(crawl.Config{ReplayDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fetcher.Close)

	type testBundle struct {
		tx   pgx.Tx
		task int64
	}
	setup := func(t *testing.T) (*rivertest.Worker[jobs.TargetQueueArgs, pgx.Tx], *testBundle) {
		t.Helper()
		tx := pgtest.Tx(t)
		w := workers.NewTargetQueueWorker(store.NewStore(tx), fetcher, builtin.NewHashEmbedder(256), nil, workers.TargetSources{},
			workers.PageSettings{Extract: workers.ExtractConfig{Fragments: extract.FragmentOptions{MaxRunes: 600}, MaxClaimsPerPage: 20}}, nil, nil, nil)
		b := &testBundle{tx: tx, task: fixture.Task(t, tx, "Glaciers are retreating worldwide.")}
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
	urlTarget := func(task int64, u string) jobs.TargetQueueArgs {
		return jobs.TargetQueueArgs{TaskID: task, Target: jobs.Target{Kind: jobs.TargetURL, Value: u}}
	}

	t.Run("WritesThePageItsClaimsAndFollowUpsOnce", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t)
		res, err := w.Work(ctx, t, b.tx, urlTarget(b.task, pageURL), nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("work: %v, %+v", err, res)
		}
		claims := count(t, b.tx, `SELECT count(*) FROM claims WHERE task_id = $1 AND kind = 'extracted'`, b.task)
		if claims == 0 {
			t.Fatal("no claims extracted")
		}
		if n := count(t, b.tx, `SELECT count(*) FROM claims c JOIN page_versions v ON v.id = c.page_version_id
			WHERE c.task_id = $1 AND c.extractor_model IS NOT NULL
			  AND substring(v.content FROM c.quote_start + 1 FOR c.quote_end - c.quote_start) <> ''`, b.task); n != claims {
			t.Errorf("%d of %d claims have an extractor model and a quote span in their version", n, claims)
		}
		if n := count(t, b.tx, `SELECT count(*) FROM targets WHERE task_id = $1 AND status = 'extracted'`, b.task); n != 1 {
			t.Errorf("%d extracted targets, want 1", n)
		}
		rivertest.RequireInsertedTx[*riverpgxv5.Driver](ctx, t, b.tx, &jobs.VerifyNLIArgs{}, nil)
		if n := count(t, b.tx, `SELECT count(*) FROM river_job WHERE kind = $1`, jobs.KindEmbed); n == 0 {
			t.Error("no embed job queued for the new fragments")
		}
		// Worked again (a retry after a crash at commit): nothing new.
		if _, err := w.Work(ctx, t, b.tx, urlTarget(b.task, pageURL), nil); err != nil {
			t.Fatal(err)
		}
		if again := count(t, b.tx, `SELECT count(*) FROM claims WHERE task_id = $1`, b.task); again != claims {
			t.Errorf("a second run made %d claims, want the same %d", again, claims)
		}
		if n := count(t, b.tx, `SELECT count(*) FROM page_versions v JOIN pages p ON p.id = v.page_id WHERE p.url = $1`, pageURL); n != 1 {
			t.Errorf("%d versions of the page, want 1", n)
		}
	})

	t.Run("UnreadableTargetFailsOnceWithTheReason", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t)
		res, err := w.Work(ctx, t, b.tx, urlTarget(b.task, "https://glaciers.example.org/missing"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.EventKind != river.EventKindJobCancelled {
			t.Errorf("event %v, want cancelled", res.EventKind)
		}
		var status, reason string
		if err := b.tx.QueryRow(ctx, `SELECT status, COALESCE(error, '') FROM targets WHERE task_id = $1`, b.task).Scan(&status, &reason); err != nil {
			t.Fatal(err)
		}
		if status != "failed" || reason == "" {
			t.Errorf("target %s with reason %q, want failed with a reason", status, reason)
		}
	})

	t.Run("StoppedTaskWritesNothing", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t)
		if _, err := b.tx.Exec(ctx, `UPDATE tasks SET status = 'stopped' WHERE id = $1`, b.task); err != nil {
			t.Fatal(err)
		}
		res, err := w.Work(ctx, t, b.tx, urlTarget(b.task, pageURL), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.EventKind != river.EventKindJobCancelled {
			t.Errorf("event %v, want cancelled", res.EventKind)
		}
		if n := count(t, b.tx, `SELECT count(*) FROM claims WHERE task_id = $1`, b.task); n != 0 {
			t.Errorf("%d claims written to a stopped task", n)
		}
	})
}
