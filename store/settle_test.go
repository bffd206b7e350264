package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestSettleTasks: a task with a job to run stays active; once its last job
// is done the sweep completes it; a job inserted behind the sweep's back
// reopens it; a task whose row a writer holds is left for the next sweep;
// a stopped task is never completed.
func TestSettleTasks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	st := store.NewStore(pool)
	newTask := func() int64 {
		task, err := st.CreateTask(ctx, store.CreateTaskParams{OrganizationID: "org", Hypothesis: "h", BudgetClass: "standard"})
		if err != nil {
			t.Fatal(err)
		}
		return task.ID
	}
	job := func(task int64, state string) int64 {
		var id int64
		if err := pool.QueryRow(ctx, `INSERT INTO river_job (kind, args, queue, priority, max_attempts, state, finalized_at)
			VALUES ('rerank', jsonb_build_object('task_id', $1::bigint), 'rerank', 1, 5, $2::river_job_state,
			        CASE WHEN $2 IN ('completed', 'cancelled', 'discarded') THEN now() END) RETURNING id`, task, state).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	status := func(task int64) string {
		var s string
		if err := pool.QueryRow(ctx, `SELECT status || CASE WHEN completed_at IS NULL THEN '' ELSE '+at' END FROM tasks WHERE id = $1`, task).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	settle := func() store.Settled {
		res, err := st.SettleTasks(ctx, 2) // pages of two: the walk crosses pages
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	busy, idle, stopped, held := newTask(), newTask(), newTask(), newTask()
	running := job(busy, "running")
	job(idle, "completed")
	if _, err := pool.Exec(ctx, `UPDATE tasks SET status = 'stopped' WHERE id = $1`, stopped); err != nil {
		t.Fatal(err)
	}
	// a writer holds the row of `held` (a person adding work)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.New(tx).ReopenTask(ctx, held); err != nil {
		t.Fatal(err)
	}
	res := settle()
	if !slices.Equal(res.Completed, []int64{idle}) || status(busy) != "active" || status(idle) != "completed+at" ||
		status(stopped) != "stopped" || status(held) != "active" {
		t.Errorf("first sweep completed %v: busy %s, idle %s, stopped %s, held %s", res.Completed, status(busy), status(idle), status(stopped), status(held))
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE id = $1`, running); err != nil {
		t.Fatal(err)
	}
	job(idle, "available") // inserted by SQL, not through the service
	res = settle()
	if !slices.Equal(res.Completed, []int64{busy, held}) || !slices.Equal(res.Reopened, []int64{idle}) || status(idle) != "active" {
		t.Errorf("second sweep completed %v, reopened %v (idle %s)", res.Completed, res.Reopened, status(idle))
	}
	// a person's work reopens at once
	if err := st.ReopenTask(ctx, busy); err != nil {
		t.Fatal(err)
	}
	if status(busy) != "active" {
		t.Errorf("ReopenTask left %s", status(busy))
	}
}
