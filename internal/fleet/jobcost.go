package fleet

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// costWriteTimeout bounds the write of one attempt's spending.
const costWriteTimeout = 10 * time.Second

// jobCost is River worker middleware that gives every job attempt a cost
// meter (internal/cost) in its context and, once the attempt has returned —
// completed, failed, snoozed, cancelled or panicked: a failed attempt really
// spent what it spent — adds the meter's counts to job_cost_total and, for a
// job of a task, to the task's row of its stage (the job's kind) with one
// store call (store.AddTaskCost). The write follows the attempt, in a
// statement of its own, not in the job's completing transaction: an attempt
// that fails never commits one. So the spending of an attempt whose process
// is killed (SIGKILL, OOM) before it returns is not recorded; the lifeline
// rescues the job and the next attempt counts its own.
type jobCost struct {
	river.MiddlewareDefaults
	st  *store.Store
	m   *metrics.Metrics
	log *slog.Logger
}

var _ rivertype.WorkerMiddleware = (*jobCost)(nil)

// Work runs the attempt with a meter and records what it spent.
func (j *jobCost) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	ctx, meter := cost.WithMeter(ctx)
	defer j.record(ctx, job, meter)
	return doInner(ctx)
}

// record writes what the attempt spent, if anything; a failed write is
// logged, never the job's failure (its work is already committed or not).
func (j *jobCost) record(ctx context.Context, job *rivertype.JobRow, meter *cost.Meter) {
	c := meter.Counts()
	if c.IsZero() {
		return
	}
	j.m.JobCost(job.Kind, c)
	task, ok := jobs.TaskOf(job.Kind, job.EncodedArgs)
	if !ok {
		return // the orphan sweep, an embed job of no task
	}
	// The job's context may have ended (its timeout, a shutdown): the
	// spending happened anyway.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), costWriteTimeout)
	defer cancel()
	err := j.st.AddTaskCost(wctx, store.AddTaskCostParams{TaskID: task, Stage: job.Kind,
		ModelCalls: c.ModelCalls, TokensIn: c.TokensIn, TokensOut: c.TokensOut, Searches: c.Searches,
		AcademicCalls: c.AcademicCalls, Fetches: c.Fetches, FetchBytes: c.FetchBytes})
	if err != nil && j.log != nil {
		j.log.WarnContext(ctx, "recording a job's cost failed", slog.Int64("job_id", job.ID), slog.String("kind", job.Kind),
			slog.Int64("task_id", task), slog.Any("error", err))
	}
}
