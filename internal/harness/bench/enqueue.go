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
// args) in one transaction, through intake.AddTargets; then River alone
// inserting the same jobs, with InsertManyTx (unique, the rows returned, as
// AddTargets does) and InsertManyFastTx (unique, nothing returned): what
// the registration costs alone, and what the jobs themselves cost River
// beside the no-op baseline's. The registration and River's unique insert
// are each Postgres work of the order of the no-op insert itself (foreign-key
// checks and a unique index for the one, the unique key and an ON CONFLICT
// insert instead of COPY for the other), which is what bounds the ratio.
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
	ways := []struct {
		metric string
		insert func(ctx context.Context, tx pgx.Tx, task int64, batch []jobs.Target) error
	}{
		{fmt.Sprintf("batch insert with target registration, batches of %d", h.opts.InsertBatch),
			func(ctx context.Context, tx pgx.Tx, task int64, batch []jobs.Target) error {
				res, err := intake.AddTargets(ctx, client, tx, task, batch)
				if err == nil && len(res) != len(batch) {
					err = fmt.Errorf("%d results for %d targets", len(res), len(batch))
				}
				return err
			}},
		{"registration alone: the same targets registered on the task, no jobs",
			func(ctx context.Context, tx pgx.Tx, task int64, batch []jobs.Target) error {
				_, err := intake.RegisterTargets(ctx, tx, task, store.ViaUser, nil, batch)
				return err
			}},
		{"River alone: InsertManyTx of the same target_queue jobs (unique, rows returned)",
			func(ctx context.Context, tx pgx.Tx, task int64, batch []jobs.Target) error {
				_, err := client.InsertManyTx(ctx, tx, intake.TargetJobs(task, 0, batch))
				return err
			}},
		{"River alone: InsertManyFastTx of the same target_queue jobs (unique, nothing returned)",
			func(ctx context.Context, tx pgx.Tx, task int64, batch []jobs.Target) error {
				_, err := client.InsertManyFastTx(ctx, tx, intake.TargetJobs(task, 0, batch))
				return err
			}},
	}
	for w, way := range ways {
		var rates []float64
		for rep := range h.opts.Reps {
			var task int64
			err := st.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
				t, err := intake.CreateTask(ctx, client, tx, "bench", intake.TaskSpec{Hypothesis: fmt.Sprintf("enqueue benchmark %d.%d", w, rep)})
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
				if err := st.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error { return way.insert(ctx, tx, task, batch) }); err != nil {
					return err
				}
			}
			rates = append(rates, rate(n, time.Since(start)))
			h.logf("enqueue (%s) rep %d: %.0f jobs/s", way.metric, rep+1, rates[len(rates)-1])
		}
		h.add("enqueue (target_queue)", way.metric, rates, "jobs/s", "")
		h.compare("InsertManyFast", b.insertRate, "jobs/s")
	}
	return nil
}
