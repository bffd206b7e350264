package workers

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// CleanupWorker works cleanup jobs (ARCHITECTURE.md §5.6).
type CleanupWorker struct {
	river.WorkerDefaults[jobs.CleanupArgs]
	store       *store.Store
	orphanBatch int // rows of each kind one sweep takes; 0 means store.OrphanBatch
	logger      *slog.Logger
}

// NewCleanupWorker is the cleanup worker: each orphan sweep takes at most
// orphanBatch rows of each kind (0: store.OrphanBatch); a nil logger
// records nothing.
func NewCleanupWorker(st *store.Store, orphanBatch int, log *slog.Logger) *CleanupWorker {
	return &CleanupWorker{store: st, orphanBatch: orphanBatch, logger: logger(log)}
}

// CleanupOutput is recorded as the job's output: rows deleted by kind.
type CleanupOutput = store.CleanupResult

// Work runs the cleanup and completes the job in one transaction, so a
// crash at any point leaves either everything or nothing deleted.
func (w *CleanupWorker) Work(ctx context.Context, job *river.Job[jobs.CleanupArgs]) error {
	// Orphans go in bounded batches, one transaction each (committed sweeps
	// stay done if the job dies); the last one completes the job.
	req := store.CleanupRequest{Mode: job.Args.Mode, TaskID: job.Args.TaskID,
		Task: job.Args.Mode != jobs.CleanupOrphans, Orphans: job.Args.Mode != jobs.CleanupSoft, Batch: w.orphanBatch,
		RobotsKeptSince: time.Now().Add(-robotsCaptureKeep)}
	out := CleanupOutput{Mode: req.Mode, TaskID: req.TaskID}
	for sweep := 1; ; sweep++ {
		last, more := sweep == maxSweepsPerJob, false
		err := w.store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
			res, err := q.Cleanup(ctx, req)
			if err != nil {
				return err
			}
			out.Add(res)
			if more = res.More; more && !last {
				return nil // committed; the next sweep goes on
			}
			return completeTx(ctx, tx, job, out)
		})
		if err != nil {
			return fmt.Errorf("cleanup %s (sweep %d): %w", job.Args.Mode, sweep, err)
		}
		if !more || last {
			break
		}
		req.Task = false // the task's own rows went with the first sweep
	}
	w.logger.InfoContext(ctx, "cleanup done", slog.Int64("job_id", job.ID), slog.Any("deleted", out))
	return nil
}

// robotsCaptureKeep is how long a robots.txt capture is kept whatever
// needs it: a day past the fetchers' lifetime of a robots.txt, for the jobs
// that fetched under it to end and write their pages' captures.
const robotsCaptureKeep = crawl.RobotsTTL + 24*time.Hour

// maxSweepsPerJob bounds one cleanup job to this many orphan batches; what is
// left waits for the next sweep (the periodic one, or another job).
const maxSweepsPerJob = 100
