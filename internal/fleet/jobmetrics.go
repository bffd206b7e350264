package fleet

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/metrics"
)

// jobMetrics is River worker middleware that records every job's outcome,
// run time and queue wait, so no worker counts by hand.
type jobMetrics struct {
	river.MiddlewareDefaults
	m *metrics.Metrics
}

var _ rivertype.WorkerMiddleware = (*jobMetrics)(nil)

// Work times the job and classifies what it returned (JobOutcome). A panic
// is recorded as "panicked" and goes on up to River, which records it on the
// job and retries it.
func (j *jobMetrics) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) (err error) {
	if job.AttemptedAt != nil {
		j.m.JobWait(job.Kind, job.Queue, job.AttemptedAt.Sub(job.ScheduledAt).Seconds())
	}
	start := time.Now()
	panicked := true
	defer func() {
		outcome := metrics.OutcomePanicked
		if !panicked {
			outcome = JobOutcome(job, err)
		}
		j.m.JobDone(job.Kind, job.Queue, outcome, time.Since(start).Seconds())
	}()
	err = doInner(ctx)
	panicked = false
	return err
}

// JobOutcome says what River does with a job whose work returned err:
// completed, snoozed, cancelled, or — for other errors — retried, or
// discarded once it has used its last attempt.
func JobOutcome(job *rivertype.JobRow, err error) string {
	var snooze *rivertype.JobSnoozeError
	var cancel *rivertype.JobCancelError
	switch {
	case err == nil:
		return metrics.OutcomeCompleted
	case errors.As(err, &snooze):
		return metrics.OutcomeSnoozed
	case errors.As(err, &cancel):
		return metrics.OutcomeCancelled
	case job.Attempt >= job.MaxAttempts:
		return metrics.OutcomeDiscarded
	default:
		return metrics.OutcomeRetried
	}
}
