package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// enqueue measures what `enqueue task add --file` does per batch: register
// the targets on the task and insert their target_queue jobs (unique by
// args) in one transaction, through intake.AddTargets.
func (h *harness) enqueue(ctx context.Context, b baseline) error {
	pool, _, done, err := h.scratch(ctx)
	if err != nil {
		return err
	}
	defer done()
	client, err := insertOnlyClient(pool)
	if err != nil {
		return err
	}
	st := store.NewStore(pool)
	n := h.opts.RiverJobs
	var rates []float64
	for rep := range h.opts.Reps {
		var task int64
		err := st.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
			t, err := intake.CreateTask(ctx, client, tx, "bench", intake.TaskSpec{Hypothesis: fmt.Sprintf("enqueue benchmark %d", rep)})
			task = t.ID
			return err
		})
		if err != nil {
			return err
		}
		targets := make([]jobs.Target, n)
		for i := range targets {
			t, err := jobs.Target{Kind: jobs.TargetURL, Value: fmt.Sprintf("https://site%d.example/r%d/page/%d", i%97, rep, i)}.Normalized()
			if err != nil {
				return err
			}
			targets[i] = t
		}
		start := time.Now()
		for i := 0; i < n; i += h.opts.InsertBatch {
			batch := targets[i:min(i+h.opts.InsertBatch, n)]
			err := st.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
				res, err := intake.AddTargets(ctx, client, tx, task, batch)
				if err == nil && len(res) != len(batch) {
					err = fmt.Errorf("%d results for %d targets", len(res), len(batch))
				}
				return err
			})
			if err != nil {
				return err
			}
		}
		rates = append(rates, rate(n, time.Since(start)))
		h.logf("enqueue rep %d: %.0f jobs/s", rep+1, rates[len(rates)-1])
	}
	h.add("enqueue (target_queue)", fmt.Sprintf("batch insert with target registration, batches of %d", h.opts.InsertBatch),
		rates, "jobs/s", "")
	h.compare("InsertManyFast", b.insertRate, "jobs/s")
	return nil
}
