package workers

import (
	"fmt"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// The error table (errs.ErrorTable): for every way a job can fail, what River does with it and
// whether a target_queue job's target fails. Workers return errors; the
// fleet's middleware (Middleware) classifies each once and applies its row;
// target_queue's own middleware records the target's failure first. A
// failure's kind is a typed value (Failure), never read from an error's text.

// Names of the error table's rows and outcomes (internal/errs holds the
// table; this package applies it).
type (
	Failure = errs.Failure
	Outcome = errs.Outcome
	Rule    = errs.Rule
)

const (
	BadArgs           = errs.BadArgs
	BadInput          = errs.BadInput
	TaskNotFound      = errs.TaskNotFound
	TaskStopped       = errs.TaskStopped
	TaskPaused        = errs.TaskPaused
	OverShare         = errs.OverShare
	PageNotFound      = errs.PageNotFound
	DataRefused       = errs.DataRefusedFailure
	TargetFailed      = errs.TargetFailed
	ServerBusy        = errs.ServerBusy
	ModelUnavailable  = errs.ModelUnavailable
	WorkerDied        = errs.WorkerDiedFailure
	ClaimKillsWorker  = errs.ClaimKillsWorker
	WaitedTooLong     = errs.WaitedTooLong
	PoliteWait        = errs.PoliteWait
	PoliteWaitTooLong = errs.PoliteWaitTooLong
	Transient         = errs.Transient
	EmbeddingsPending = errs.EmbeddingsPending
	PeerBusy          = errs.PeerBusy
	CitationsDown     = errs.CitationsDown

	Retry  = errs.Retry
	Snooze = errs.Snooze
	Cancel = errs.Cancel
)

// fail marks err as a failure of kind k (errs.Fail).
func fail(k Failure, err error) error { return errs.Fail(k, err) }

// wait marks err, why the job cannot go on yet, as a failure of kind k
// (a row whose outcome is to snooze) asking to wait d (errs.Wait).
func wait(k Failure, d time.Duration, err error) error { return errs.Wait(k, d, err) }

// fetchedFailure is a target's failure after its page was fetched: the
// fetch is recorded with the target's failure.
type fetchedFailure struct {
	Fetch *crawl.Result
	Err   error
}

func (e *fetchedFailure) Error() string { return e.Err.Error() }
func (e *fetchedFailure) Unwrap() error { return e.Err }

// Waits of a job whose model backend is unavailable and gave no hint.
const (
	modelWaitDefault = 10 * time.Second
	modelWaitMax     = 10 * time.Minute
)

// Decision is the error table applied to one job's error.
type Decision struct {
	Failure Failure // "" when the job succeeded or already decided (a worker's own snooze within bounds)
	Rule    Rule
	Outcome Outcome // Rule.Outcome, or Retry when a snooze is past its bounds
	Wait    time.Duration
	Err     error
	// LastAttempt: a retried failure on the job's last attempt (River
	// discards it; target_queue fails its target and cancels instead).
	LastAttempt bool
}

// Ends reports whether the decision ends the job (cancelled, or discarded on
// its last attempt).
func (d Decision) Ends() bool { return d.Outcome == Cancel || d.Outcome == Retry && d.LastAttempt }

// decide classifies err, a job's result, and applies the error table.
// waits bounds what web servers and the search backend may ask for.
func decide(job *rivertype.JobRow, err error, waits ServerWaits) Decision {
	if err == nil {
		return Decision{}
	}
	kind, wait := classify(err)
	switch kind {
	case TaskPaused:
		wait = pausedWait(err) // not counted among MaxSnoozes: a pause may last days
	case OverShare:
		wait = shareWait(err) // nor a fair share's: another organization's work may last hours
	case PoliteWait:
		return decidePolite(job, err)
	case ServerBusy:
		if snoozeCount(job.Metadata) >= int64(waits.Snoozes) {
			return decided(job, Transient, err, 0) // the server's waits are used up: an attempt
		}
		wait = min(wait, waits.Max)
	default:
		if errs.ErrorTable[kind].Outcome != Snooze {
			break
		}
		// A model server's or the job's own wait (embeddings, a peer):
		// bounded in number.
		if kind == ModelUnavailable && wait <= 0 {
			wait = modelWaitDefault
		}
		wait = min(wait, modelWaitMax)
		if n := snoozeCount(job.Metadata); n >= errs.MaxSnoozes {
			return decided(job, WaitedTooLong, fmt.Errorf("still waiting after %d snoozes: counted as an attempt: %w", n, err), 0)
		}
	}
	return decided(job, kind, err, wait)
}

func decided(job *rivertype.JobRow, kind Failure, err error, wait time.Duration) Decision {
	rule := errs.ErrorTable[kind]
	d := Decision{Failure: kind, Rule: rule, Outcome: rule.Outcome, Wait: wait, Err: err}
	if job.Attempt <= rule.Retries {
		d.Outcome = Retry // the row's outcome comes after its retries
	}
	if d.Outcome == Retry && job.Attempt >= job.MaxAttempts {
		d.LastAttempt = true
	}
	return d
}

// classify names err's row of the error table (errs.KindOf) and the wait
// asked for with it, wherever in err the job (errs.Wait) or its server
// (Retry-After: crawl, search, the model and academic clients) said it.
func classify(err error) (Failure, time.Duration) {
	wait, _ := remoteerr.RetryAfter(err)
	return errs.KindOf(err), wait
}
