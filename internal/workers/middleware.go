package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"golang.org/x/sync/semaphore"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// Middleware is what every job goes through, whatever its kind; the fleet
// installs it (after its metrics) and so do worker tests. It is the one
// place a job's failure is classified and the error table applied: st
// records a target_queue job's failed target, waits bounds the Retry-After
// of web servers and the search backend, observe (nil: none) counts the
// citations a failed recheck records unreachable, log (nil: none) reports
// failed targets.
func Middleware(st *store.Store, waits ServerWaits, observe Observer, log *slog.Logger) []rivertype.Middleware {
	return []rivertype.Middleware{newOutcomes(st, waits, observe, log)}
}

func newOutcomes(st *store.Store, waits ServerWaits, observe Observer, log *slog.Logger) *outcomes {
	return &outcomes{store: st, waits: waits, observe: observer(observe), logger: logger(log), alone: semaphore.NewWeighted(soloWeight)}
}

// outcomes applies the error table (errs.ErrorTable) once to every job's
// result: args the contract refuses cancel the job before it runs. A job
// whose worker process died under it errs.MaxWorkerDeaths times runs alone
// in its process (admit), so that a death then is its own; once it has died
// errs.MaxWorkerDeaths times alone it is cancelled before it runs, unless its
// kind ends such a job itself (verify_nli splits its shard). A failure is
// then retried, snoozed or cancelled as its row says, a
// cancelled job's output naming the failure ({"failure": "data_refused",
// …}); and a row that fails the target, when it ends a target_queue job,
// records the target's failure first (failTarget), so that no target is
// left "seen".
type outcomes struct {
	river.MiddlewareDefaults
	store   *store.Store
	waits   ServerWaits
	observe Observer
	logger  *slog.Logger

	// alone is the process's jobs' turn: every job holds one unit while it
	// runs, a suspect (admit) all of them.
	alone *semaphore.Weighted
}

// soloWeight is alone's size: more than the jobs a process runs at once.
const soloWeight = 1 << 30

var _ rivertype.WorkerMiddleware = (*outcomes)(nil)

// ownDeaths are the kinds that end a job whose worker keeps dying
// themselves: a verify_nli shard is split until the claim that kills its
// worker is alone.
var ownDeaths = map[string]bool{jobs.KindVerifyNLI: true}

func (m *outcomes) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	var err error
	switch _, argsErr := jobs.ParseArgs(job.Kind, job.EncodedArgs); {
	case argsErr != nil:
		err = fail(BadArgs, argsErr)
	case diedAlone(job) >= errs.MaxWorkerDeaths && !ownDeaths[job.Kind]:
		err = fail(WorkerDied, fmt.Errorf("its worker process died in %d attempts, %d of them while it ran alone (a page that exhausts the worker?): not run again",
			workerDeaths(job), diedAlone(job)))
	default:
		var release func()
		if release, err = m.admit(ctx, job); err == nil {
			err = doInner(ctx)
			release()
		}
	}
	d := decide(job, err, m.waits)
	notePoliteWait(ctx, job, d)
	notePausedWait(ctx, job, d)
	noteShareWait(ctx, job, d)
	if d.Rule.FailsTarget && d.Ends() && job.Kind == jobs.KindTargetQueue {
		return m.failTarget(ctx, job, d)
	}
	if d.Ends() && job.Kind == jobs.KindRecheck {
		m.recheckUnreachable(ctx, job, d)
	}
	return apply(ctx, d)
}

// admit waits for job's turn in the process and returns its end: beside the
// process's other jobs, or, once its worker has died under it
// errs.MaxWorkerDeaths times, alone, its attempt marked so
// (store.MarkSoloAttempt) for the lifeline to count a death now as its own
// (worker_deaths_solo). A job that dies beside the one that kills the
// process is not taken for the killer.
func (m *outcomes) admit(ctx context.Context, job *rivertype.JobRow) (release func(), err error) {
	weight := int64(1)
	if workerDeaths(job) >= errs.MaxWorkerDeaths {
		weight = soloWeight
	}
	if err := m.alone.Acquire(ctx, weight); err != nil {
		return nil, fmt.Errorf("wait for the job's turn in the process: %w", err)
	}
	release = func() { m.alone.Release(weight) }
	if weight == soloWeight {
		if err := m.store.MarkSoloAttempt(ctx, store.MarkSoloAttemptParams{ID: job.ID, Attempt: int32(job.Attempt)}); err != nil {
			release()
			return nil, fmt.Errorf("mark the attempt alone: %w", err)
		}
	}
	return release, nil
}

// apply turns a decision into what River is told.
func apply(ctx context.Context, d Decision) error {
	switch {
	case d.Err == nil:
		return nil
	case d.Outcome == Snooze:
		return river.JobSnooze(d.Wait)
	case d.Outcome == Cancel:
		_ = river.RecordOutput(ctx, failureOutput{Failure: d.Failure})
		return river.JobCancel(describe(d))
	case d.LastAttempt:
		_ = river.RecordOutput(ctx, failureOutput{Failure: d.Failure})
	}
	return d.Err
}

// failTarget ends a target_queue job whose failure fails its target: the
// target (and the page, when it was fetched) is recorded failed with the
// reason, in one store call, and the job cancelled with its row recorded.
// The task goes on.
func (m *outcomes) failTarget(ctx context.Context, job *rivertype.JobRow, d Decision) error {
	cause := d.Err
	if d.LastAttempt {
		cause = fmt.Errorf("giving up after %d attempts: %w", job.Attempt, d.Err)
	} else if d.Failure == DataRefused {
		cause = fmt.Errorf("the database refuses this target's data: %w", d.Err)
	}
	var fetched *crawl.Result
	var ff *fetchedFailure
	if errors.As(d.Err, &ff) {
		fetched = ff.Fetch
	}
	if err := m.recordTargetFailure(ctx, job, fetched, cause); err != nil {
		cause = fmt.Errorf("%w (recording the failure failed too: %v)", cause, err)
	}
	_ = river.RecordOutput(ctx, failureOutput{Failure: d.Failure})
	return river.JobCancel(cause)
}

// recordTargetFailure writes the failure on the job's target (and the
// page, when it was fetched), with the reason.
func (m *outcomes) recordTargetFailure(ctx context.Context, job *rivertype.JobRow, res *crawl.Result, cause error) error {
	parsed, err := jobs.ParseArgs(job.Kind, job.EncodedArgs) // valid: Work checked them
	if err != nil {
		return fmt.Errorf("read args: %w", err)
	}
	args := parsed.(jobs.TargetQueueArgs) // its target normalised, as the worker registers it
	msg := cause.Error()
	failure := store.TargetFailure{TaskID: args.TaskID, Kind: args.Target.Kind, Value: args.Target.Value, Reason: msg,
		Event: mustJSON(map[string]any{"target": args.Target, "error": msg, "job_id": job.ID})}
	if res != nil {
		failure.Fetch = &store.FailedFetch{URL: res.URL, FinalURL: res.FinalURL, ContentType: res.ContentType,
			Status: res.Status, FetchedAt: res.FetchedAt}
	}
	err = m.store.InTx(ctx, func(_ pgx.Tx, q *store.Queries) error { return q.FailTarget(ctx, failure) })
	if err != nil {
		return fmt.Errorf("record target failure (%s): %w", msg, err)
	}
	m.logger.WarnContext(ctx, "target failed", slog.Int64("job_id", job.ID), slog.String("error", msg))
	return nil
}

// recheckUnreachable records, for a recheck of a page that ends without an
// answer (its retries used up, or no politeness turn in time), every span
// the task cites in the page unreachable, with the reason, so that the
// round reports it; the job then ends as its row says. A job of a missing
// or stopped task, or of a missing page, records nothing.
func (m *outcomes) recheckUnreachable(ctx context.Context, job *rivertype.JobRow, d Decision) {
	parsed, err := jobs.ParseArgs(job.Kind, job.EncodedArgs)
	if err != nil {
		return
	}
	a := parsed.(jobs.RecheckArgs)
	switch d.Failure {
	case TaskNotFound, TaskStopped, PageNotFound, BadArgs, errs.CancelledByPerson:
		return
	}
	if !a.IsPage() {
		return
	}
	reason := fmt.Sprintf("%s after %d attempts: %v", d.Failure, job.Attempt, d.Err)
	w := store.RecheckWrite{TaskID: a.TaskID, PageID: a.PageID, JobID: job.ID, CheckedAt: time.Now().UTC(),
		Outcome: "unreachable", Reason: reason, AllUnreachable: true}
	var done store.Rechecked
	err = m.store.InTx(ctx, func(_ pgx.Tx, q *store.Queries) error {
		var werr error
		done, werr = q.WriteRecheck(ctx, w)
		return werr
	})
	if err != nil {
		m.logger.WarnContext(ctx, "recording an unreachable recheck failed", slog.Int64("job_id", job.ID), slog.String("error", err.Error()))
		return
	}
	for state, n := range done.States {
		m.observe.Rechecked(state, n)
	}
}

// failureOutput is the output of a job that ended with a failure: its row
// of the error table, for status and reports to read.
type failureOutput struct {
	Failure Failure `json:"failure"`
}

// describe is the cancellation's message.
func describe(d Decision) error {
	if d.Failure == DataRefused {
		return fmt.Errorf("the database refuses this job's data, not retried: %w", d.Err)
	}
	return d.Err
}
