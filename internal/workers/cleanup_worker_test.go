package workers_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestCleanupWorker works cleanup jobs through rivertest inside a
// transaction rolled back when each subtest ends: two tasks share a page,
// each has one of its own.
func TestCleanupWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	type testBundle struct {
		tx             pgx.Tx
		a, b           int64
		shared, onlyA  fixture.Page
		claimA, claimB int64
	}
	setup := func(t *testing.T) (*rivertest.Worker[jobs.CleanupArgs, pgx.Tx], *testBundle) {
		t.Helper()
		tx := pgtest.Tx(t)
		b := &testBundle{tx: tx}
		b.a = fixture.Task(t, tx, "Sea ice is melting.")
		b.b = fixture.Task(t, tx, "Glaciers are retreating.")
		b.shared = fixture.PageOf(t, tx, b.a, "https://shared.example.org/ice", "Arctic sea ice is melting earlier each year.")
		if _, err := tx.Exec(ctx, `INSERT INTO task_pages (task_id, page_id, page_version_id, reason, depth)
			VALUES ($1, $2, $3, 'url_target', 0)`, b.b, b.shared.ID, b.shared.VersionID); err != nil {
			t.Fatal(err)
		}
		b.onlyA = fixture.PageOf(t, tx, b.a, "https://a.example.org/only", "Polar bears depend on sea ice.")
		b.claimA = fixture.Claim(t, tx, b.a, "Sea ice is melting.")
		b.claimB = fixture.Claim(t, tx, b.b, "Glaciers are retreating.")
		w := workers.NewCleanupWorker(store.NewStore(tx), 0, nil)
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

	t.Run("SoftStopsTheTaskAndLeavesSharedRows", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t)
		res, err := w.Work(ctx, t, b.tx, jobs.CleanupArgs{TaskID: b.a, Mode: jobs.CleanupSoft}, nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("work: %v, %+v", err, res)
		}
		if n := count(t, b.tx, `SELECT count(*) FROM tasks WHERE id = $1 AND status = 'stopped'`, b.a); n != 1 {
			t.Error("task A is not stopped")
		}
		if n := count(t, b.tx, `SELECT count(*) FROM claims WHERE task_id = $1`, b.a); n != 0 {
			t.Errorf("task A keeps %d claims", n)
		}
		if n := count(t, b.tx, `SELECT count(*) FROM task_pages WHERE task_id = $1`, b.a); n != 0 {
			t.Errorf("task A keeps %d task pages", n)
		}
		if n := count(t, b.tx, `SELECT count(*) FROM claims WHERE id = $1`, b.claimB); n != 1 {
			t.Error("task B lost its claim")
		}
		if n := count(t, b.tx, `SELECT count(*) FROM page_versions WHERE id IN ($1, $2)`, b.shared.VersionID, b.onlyA.VersionID); n != 2 {
			t.Errorf("soft cleanup deleted page versions (%d of 2 left)", n)
		}
		if n := count(t, b.tx, `SELECT count(*) FROM event_log WHERE task_id = $1 AND event_type = 'cleanup'`, b.a); n != 1 {
			t.Errorf("%d cleanup events, want 1", n)
		}
	})

	t.Run("HardDeletesExactlyTheOrphans", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t)
		if _, err := w.Work(ctx, t, b.tx, jobs.CleanupArgs{TaskID: b.a, Mode: jobs.CleanupHard}, nil); err != nil {
			t.Fatal(err)
		}
		if n := count(t, b.tx, `SELECT count(*) FROM pages WHERE id = $1`, b.onlyA.ID); n != 0 {
			t.Error("the page only task A reached survived a hard cleanup")
		}
		if n := count(t, b.tx, `SELECT count(*) FROM fragments WHERE page_version_id = $1`, b.shared.VersionID); n != len(b.shared.Fragments) {
			t.Errorf("the shared page lost fragments (%d left)", n)
		}
	})

	t.Run("OrphansGoInBoundedBatches", func(t *testing.T) {
		t.Parallel()
		_, b := setup(t)
		for _, u := range []string{"https://a.example.org/two", "https://a.example.org/three", "https://a.example.org/four"} {
			fixture.PageOf(t, b.tx, b.a, u, "Sea ice thins.")
		}
		w := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(store.NewStore(b.tx), workers.ServerWaits{}, nil, nil)},
			workers.NewCleanupWorker(store.NewStore(b.tx), 1, nil))
		res, err := w.Work(ctx, t, b.tx, jobs.CleanupArgs{TaskID: b.a, Mode: jobs.CleanupHard}, nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("work: %v, %+v", err, res)
		}
		var out workers.CleanupOutput
		if err := json.Unmarshal(res.Job.Output(), &out); err != nil {
			t.Fatal(err)
		}
		if out.Pages != 4 || out.PageVersions != 4 || out.More {
			t.Errorf("output %+v: want the 4 orphan pages and versions deleted one per sweep, nothing left", out)
		}
		if n := count(t, b.tx, `SELECT count(*) FROM pages p WHERE NOT EXISTS (SELECT 1 FROM task_pages tp WHERE tp.page_id = p.id)`); n != 0 {
			t.Errorf("%d orphan pages left", n)
		}
	})

	t.Run("MissingTaskIsCancelledOnce", func(t *testing.T) {
		t.Parallel()
		w, b := setup(t)
		res, err := w.Work(ctx, t, b.tx, jobs.CleanupArgs{TaskID: b.b + 1000, Mode: jobs.CleanupSoft}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.EventKind != river.EventKindJobCancelled {
			t.Errorf("event %v, want cancelled (a missing task is permanent)", res.EventKind)
		}
	})
}
