package workers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// Middleware is what every job goes through, whatever its kind; the fleet
// installs it (after its metrics) and so do worker tests. waits bounds the
// Retry-After of web servers and the search backend.
func Middleware(waits ServerWaits) []rivertype.Middleware {
	return []rivertype.Middleware{&outcomes{waits: waits}}
}

// outcomes applies the error table (ErrorTable) once to every job's result:
// args the contract refuses cancel the job before it runs, and so does a
// job whose worker process died under it errs.MaxWorkerDeaths times, unless
// its kind ends such a job itself (ownDeaths); a failure is then retried,
// snoozed or cancelled as its row says, a cancelled job's output naming the
// failure ({"failure": "data_refused", …}).
type outcomes struct {
	river.MiddlewareDefaults
	waits ServerWaits
}

var _ rivertype.WorkerMiddleware = (*outcomes)(nil)

// ownDeaths are the kinds that end a job whose worker keeps dying
// themselves: target_queue fails its target (targetFailures), a verify_nli
// shard is split until the claim that kills its worker is alone.
var ownDeaths = map[string]bool{jobs.KindTargetQueue: true, jobs.KindVerifyNLI: true}

func (m *outcomes) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	var err error
	switch _, argsErr := jobs.ParseArgs(job.Kind, job.EncodedArgs); {
	case argsErr != nil:
		err = fail(BadArgs, argsErr)
	case workerDeaths(job) >= errs.MaxWorkerDeaths && !ownDeaths[job.Kind]:
		err = fail(WorkerDied, fmt.Errorf("its worker process died in %d attempts: not run again", workerDeaths(job)))
	default:
		err = doInner(ctx)
	}
	d := decide(job, err, m.waits)
	notePoliteWait(ctx, job, d)
	notePausedWait(ctx, job, d)
	noteShareWait(ctx, job, d)
	return apply(ctx, d)
}

// apply turns a decision into what River is told.
func apply(ctx context.Context, d Decision) error {
	var cancel *river.JobCancelError
	switch {
	case d.Err == nil:
		return nil
	case errors.As(d.Err, &cancel):
		return d.Err // cancelled below, by target_queue's middleware
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

// jobCounts are the counts a job's metadata keeps: River's snoozes, the
// lifeline's deaths of its worker (all, and those during attempts the job
// ran alone among its kind in its process), target_queue's politeness
// waits with the time of the first (notePoliteWait), the waits of a
// paused task (notePausedWait) and those of an organisation over its share
// (noteShareWait).
type jobCounts struct {
	Snoozes          int64     `json:"snoozes"`
	WorkerDeaths     int       `json:"worker_deaths"`
	WorkerDeathsSolo int       `json:"worker_deaths_solo"`
	PoliteWaits      int64     `json:"polite_waits"`
	PoliteSince      time.Time `json:"polite_since"`
	PausedWaits      int64     `json:"paused_waits"`
	ShareWaits       int64     `json:"share_waits"`
}

func countsOf(metadata []byte) jobCounts {
	var c jobCounts
	_ = json.Unmarshal(metadata, &c)
	return c
}

// workerDeaths counts the attempts of job whose worker process died under it.
func workerDeaths(job *rivertype.JobRow) int { return countsOf(job.Metadata).WorkerDeaths }

// snoozeCount is how often River has snoozed the job for anything but
// politeness, whose waits have their own bound (errs.MaxPoliteWait), its
// task's pauses, which have none (a person resumes the task), and its
// organisation's fair share, which ends with the other organisations' work.
func snoozeCount(metadata []byte) int64 {
	c := countsOf(metadata)
	return c.Snoozes - c.PoliteWaits - c.PausedWaits - c.ShareWaits
}
