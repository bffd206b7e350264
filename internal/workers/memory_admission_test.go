package workers_test

import (
	"context"
	"runtime"
	"strings"
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
	"github.com/evidencefleet/evidencefleet/internal/membudget"
	"github.com/evidencefleet/evidencefleet/internal/models/builtin"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestTargetQueueAdmitsPagesByMemory: a target_queue job takes its page's
// estimate of the worker's page budget before parsing it and gives it
// back when done; a page over the most a page may hold fails its target
// page_memory, once; a job whose context ends while it waits for memory
// returns the context's error (River retries it) and leaves its target
// to that retry.
func TestTargetQueueAdmitsPagesByMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const pageURL = "https://sea.example.org/level"
	dir := t.TempDir()
	if err := corpus.WriteArchive(dir, []corpus.Page{testfleet.Page(pageURL, "Sea level",
		"Sea level rose by about three millimetres a year over the last decades, according to satellite altimetry.")}); err != nil {
		t.Fatal(err)
	}
	fetcher, err := crawl.New(crawl.Config{ReplayDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fetcher.Close)
	setup := func(t *testing.T, budget *membudget.Budget) (*rivertest.Worker[jobs.TargetQueueArgs, pgx.Tx], pgx.Tx, int64) {
		t.Helper()
		tx := pgtest.Tx(t)
		w := workers.NewTargetQueueWorker(store.NewStore(tx), fetcher, builtin.NewHashEmbedder(256), nil, workers.TargetSources{},
			workers.PageSettings{Extract: workers.ExtractConfig{Fragments: extract.FragmentOptions{MaxRunes: 600}, MaxClaimsPerPage: 20, MaxElements: 50_000}},
			budget, nil, nil)
		task := fixture.Task(t, tx, "Sea level rise is accelerating.")
		return rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(store.NewStore(tx), workers.ServerWaits{}, nil, nil)}, w), tx, task
	}
	args := func(task int64) jobs.TargetQueueArgs {
		return jobs.TargetQueueArgs{TaskID: task, Target: jobs.Target{Kind: jobs.TargetURL, Value: pageURL}}
	}
	target := func(t *testing.T, tx pgx.Tx, task int64) (status, reason string) {
		t.Helper()
		if err := tx.QueryRow(ctx, `SELECT status, COALESCE(error, '') FROM targets WHERE task_id = $1`, task).Scan(&status, &reason); err != nil {
			t.Fatal(err)
		}
		return status, reason
	}

	t.Run("AdmittedThenReleased", func(t *testing.T) {
		t.Parallel()
		budget := membudget.New(64<<20, 0)
		w, tx, task := setup(t, budget)
		res, err := w.Work(ctx, t, tx, args(task), nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("work: %v, %+v", err, res)
		}
		if status, _ := target(t, tx, task); status != "extracted" || budget.Held() != 0 {
			t.Fatalf("target %s, budget holding %d after the job; want extracted, 0", status, budget.Held())
		}
	})
	t.Run("OverThePageMaximumFailsTheTarget", func(t *testing.T) {
		t.Parallel()
		budget := membudget.New(64<<20, 1<<10)
		w, tx, task := setup(t, budget)
		res, err := w.Work(ctx, t, tx, args(task), nil)
		if err != nil || res.EventKind != river.EventKindJobCancelled {
			t.Fatalf("work: %v, %+v; want the job cancelled", err, res)
		}
		if status, reason := target(t, tx, task); status != "failed" || !strings.Contains(reason, "page_memory: ") {
			t.Fatalf("target %s with %q; want failed page_memory", status, reason)
		}
	})
	t.Run("WaitEndsWithTheJobContext", func(t *testing.T) {
		t.Parallel()
		budget := membudget.New(1<<20, 0)
		other := budget.Hold()
		if err := other.Admit(ctx, 1<<20); err != nil {
			t.Fatal(err)
		}
		w, tx, task := setup(t, budget)
		jobCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := w.Work(jobCtx, t, tx, args(task), nil)
			done <- err
		}()
		for budget.Waiting() == 0 {
			select {
			case err := <-done:
				t.Fatalf("the job ended (%v) while the budget was held", err)
			default:
				runtime.Gosched()
			}
		}
		cancel()
		err := <-done
		if err == nil || !strings.Contains(err.Error(), "wait for page memory") || !strings.Contains(err.Error(), context.Canceled.Error()) {
			t.Fatalf("work: %v; want the context's error while waiting for page memory", err)
		}
		if status, _ := target(t, tx, task); status != "seen" || budget.Held() != 1<<20 {
			t.Fatalf("target %s, budget holding %d; want seen (left to the retry) and only the other page's bytes", status, budget.Held())
		}
	})
}
