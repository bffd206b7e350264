package fleet

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

type jobCostBundle struct {
	ctx  context.Context
	st   *store.Store
	m    *metrics.Metrics
	mw   *jobCost
	task int64
}

func setupJobCost(t *testing.T) *jobCostBundle {
	t.Helper()
	tx := pgtest.Tx(t)
	st := store.NewStore(tx)
	m := metrics.New()
	return &jobCostBundle{ctx: context.Background(), st: st, m: m, mw: &jobCost{st: st, m: m},
		task: fixture.Task(t, tx, "Sea ice is declining.")}
}

// spend is a worker that spends through the context's meter, as the
// clients do, and returns err.
func spend(calls, in, out, fetches, bytes int, err error) func(context.Context) error {
	return func(ctx context.Context) error {
		for range calls {
			cost.From(ctx).Request(cost.ModelCall)
		}
		cost.From(ctx).Tokens(in, out)
		for range fetches {
			cost.From(ctx).Fetch(bytes)
		}
		return err
	}
}

func jobOf(kind, args string) *rivertype.JobRow {
	return &rivertype.JobRow{ID: 1, Kind: kind, EncodedArgs: []byte(args), Attempt: 1, MaxAttempts: 5}
}

func (b *jobCostBundle) costs(t *testing.T) map[string]store.TaskCostsRow {
	t.Helper()
	rows, err := b.st.TaskCosts(b.ctx, b.task)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.TaskCostsRow{}
	for _, r := range rows {
		out[r.Stage] = r
	}
	return out
}

// TestJobCostAddsEveryAttemptToItsTaskAndStage works attempts through the
// middleware that complete, fail, snooze and panic, and finds each one's
// spending added to the task's row of its kind and to job_cost_total.
func TestJobCostAddsEveryAttemptToItsTaskAndStage(t *testing.T) {
	t.Parallel()
	b := setupJobCost(t)
	target := jobOf(jobs.KindTargetQueue, fmt.Sprintf(`{"task_id":%d,"target":{"kind":"url","value":"https://example.com/a"}}`, b.task))
	rerank := jobOf(jobs.KindRerank, fmt.Sprintf(`{"task_id":%d}`, b.task))

	boom := errors.New("model server gone")
	if err := b.mw.Work(b.ctx, target, spend(2, 100, 20, 1, 5000, boom)); !errors.Is(err, boom) {
		t.Fatalf("the middleware changed the job's error: %v", err)
	}
	if err := b.mw.Work(b.ctx, target, spend(1, 50, 10, 1, 3000, river.JobSnooze(0))); err == nil {
		t.Fatal("the snooze was lost")
	}
	if err := b.mw.Work(b.ctx, target, spend(1, 7, 3, 0, 0, nil)); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not reach River")
			}
		}()
		_ = b.mw.Work(b.ctx, rerank, func(ctx context.Context) error {
			_ = spend(3, 30, 0, 0, 0, nil)(ctx)
			panic("worker bug")
		})
	}()
	if err := b.mw.Work(b.ctx, rerank, spend(0, 0, 0, 0, 0, nil)); err != nil { // spends nothing
		t.Fatal(err)
	}

	want := map[string]store.TaskCostsRow{
		jobs.KindTargetQueue: {Stage: jobs.KindTargetQueue, ModelCalls: 4, TokensIn: 157, TokensOut: 33, Fetches: 2, FetchBytes: 8000},
		jobs.KindRerank:      {Stage: jobs.KindRerank, ModelCalls: 3, TokensIn: 30},
	}
	got := b.costs(t)
	if len(got) != len(want) {
		t.Errorf("stages %v, want %v", got, want)
	}
	for stage, w := range want {
		if got[stage] != w {
			t.Errorf("stage %s: %+v, want %+v", stage, got[stage], w)
		}
	}
	for _, c := range []struct {
		kind, item string
		want       float64
	}{
		{jobs.KindTargetQueue, "model_calls", 4}, {jobs.KindTargetQueue, "tokens_in", 157}, {jobs.KindTargetQueue, "fetch_bytes", 8000},
		{jobs.KindRerank, "model_calls", 3}, {jobs.KindRerank, "tokens_out", 0},
	} {
		if got, _ := b.m.Sum("evidencefleet_job_cost_total", map[string]string{"kind": c.kind, "item": c.item}); got != c.want {
			t.Errorf("job_cost_total{kind=%s,item=%s} = %v, want %v", c.kind, c.item, got, c.want)
		}
	}
}

// TestJobCostOfNoTask checks that a job of no task (the orphan sweep) or of
// a task that is gone counts in the metric only, and never fails.
func TestJobCostOfNoTask(t *testing.T) {
	t.Parallel()
	b := setupJobCost(t)
	for _, job := range []*rivertype.JobRow{
		jobOf(jobs.KindCleanup, `{"mode":"orphans"}`),
		jobOf(jobs.KindRerank, fmt.Sprintf(`{"task_id":%d}`, b.task+1000)),
	} {
		if err := b.mw.Work(b.ctx, job, spend(1, 5, 5, 0, 0, nil)); err != nil {
			t.Fatalf("%s: %v", job.Kind, err)
		}
	}
	var n int
	if err := b.st.DB().QueryRow(b.ctx, `SELECT count(*) FROM task_costs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d task_costs rows written for jobs of no task", n)
	}
	if got, _ := b.m.Sum("evidencefleet_job_cost_total", map[string]string{"item": "model_calls"}); got != 2 {
		t.Errorf("job_cost_total{item=model_calls} = %v, want 2", got)
	}
}
