package workers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// A paused task's jobs (enqueue task pause, service.PauseTask) do not
// start: before a job of a task runs, PausedTasks reads the task's status
// and, when it is paused, returns a task_paused failure instead of working
// the job. The error table snoozes it for the configured wait
// (EVF_PAUSED_SNOOZE): River does not count a snooze as an attempt, and the
// job's metadata counts it apart (paused_waits) so that errs.MaxSnoozes
// never counts a pause, however long. A job already running when its task
// is paused finishes; its follow-ups are inserted and wait in turn. Every
// kind goes through the same check, in one place.

// PausedError is the failure of a job whose task is paused: it waits Wait
// and is then tried again.
type PausedError struct {
	TaskID int64
	Wait   time.Duration
}

func (e *PausedError) Error() string {
	return fmt.Sprintf("task %d is paused: the job waits %s and checks again", e.TaskID, e.Wait)
}

func (e *PausedError) Unwrap() error { return errs.ErrTaskPaused }

// PausedTasks is the worker middleware that holds back the jobs of paused
// tasks; the fleet installs it inside Middleware's, which applies the error
// table to what it returns. A job of no task, with args the contract
// refuses (cancelled outside) or of a task that does not exist (its worker
// says so) runs as it would without it.
func PausedTasks(st *store.Store, wait time.Duration) rivertype.WorkerMiddleware {
	return &pausedTasks{st: st, wait: wait}
}

type pausedTasks struct {
	river.MiddlewareDefaults
	st   *store.Store
	wait time.Duration
}

func (m *pausedTasks) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	task, ok := jobs.TaskOf(job.Kind, job.EncodedArgs)
	if !ok {
		return doInner(ctx)
	}
	status, err := m.st.TaskStatus(ctx, task)
	switch {
	case store.IsNotFound(err):
		return doInner(ctx)
	case err != nil:
		return fmt.Errorf("read the status of task %d: %w", task, err)
	case status == store.TaskPaused:
		return fail(TaskPaused, &PausedError{TaskID: task, Wait: m.wait})
	}
	return doInner(ctx)
}

// notePausedWait counts a pause's snooze in the job's metadata
// (paused_waits), which snoozeCount leaves out.
func notePausedWait(ctx context.Context, job *rivertype.JobRow, d Decision) {
	if d.Failure != TaskPaused || d.Outcome != Snooze {
		return
	}
	_ = river.MetadataSet(ctx, "paused_waits", countsOf(job.Metadata).PausedWaits+1)
}

// pausedWait is the wait of a task_paused failure (at least 1 ms: a
// snooze of 0 would fetch the job again at once).
func pausedWait(err error) time.Duration {
	var pe *PausedError
	if errors.As(err, &pe) {
		return max(pe.Wait, time.Millisecond)
	}
	return time.Millisecond
}
