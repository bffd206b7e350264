package workers

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// CleanupWorker works cleanup jobs (DESIGN §5.6).
type CleanupWorker struct {
	river.WorkerDefaults[jobs.CleanupArgs]
	Store  *store.Store
	Logger *slog.Logger
}

// CleanupOutput is recorded as the job's output: rows deleted by kind.
type CleanupOutput = store.CleanupResult

// Work runs the cleanup and completes the job in one transaction, so a
// crash at any point leaves either everything or nothing deleted.
func (w *CleanupWorker) Work(ctx context.Context, job *river.Job[jobs.CleanupArgs]) error {
	var out CleanupOutput
	err := w.Store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		var err error
		out, err = q.Cleanup(ctx, store.CleanupRequest{Mode: job.Args.Mode, TaskID: job.Args.TaskID,
			Task: job.Args.Mode != jobs.CleanupOrphans, Orphans: job.Args.Mode != jobs.CleanupSoft})
		if err != nil {
			return err
		}
		return completeTx(ctx, tx, job, out)
	})
	if err != nil {
		return fmt.Errorf("cleanup %s: %w", job.Args.Mode, err)
	}
	logger(w.Logger).InfoContext(ctx, "cleanup done", slog.Int64("job_id", job.ID), slog.Any("deleted", out))
	return nil
}
