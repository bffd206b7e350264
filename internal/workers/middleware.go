package workers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// Middleware is what every job goes through, whatever its kind; the fleet
// installs it (after its metrics) and so do worker tests.
func Middleware() []rivertype.Middleware {
	return []rivertype.Middleware{&permanentErrors{}}
}

// permanentErrors maps the error vocabulary to River's outcome in one place:
// args the contract refuses, and any permanent problem a worker returns
// (errs.Permanent: a missing or stopped task, a missing page, bad input,
// data the database refuses),
// cancel the job at once with the reason recorded, instead of retrying it;
// so does a job whose worker process died under it errs.MaxWorkerDeaths
// times (a poison job would otherwise kill workers for ever). A job that has
// snoozed errs.MaxSnoozes times has its next snooze counted as an attempt.
type permanentErrors struct{ river.MiddlewareDefaults }

var _ rivertype.WorkerMiddleware = (*permanentErrors)(nil)

func (*permanentErrors) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	if _, err := jobs.ParseArgs(job.Kind, job.EncodedArgs); err != nil {
		return river.JobCancel(err)
	}
	// target_queue ends such a job itself, failing its target with the
	// reason; verify_nli splits its shard until the claim that kills its
	// worker is alone.
	if n := workerDeaths(job); n >= errs.MaxWorkerDeaths && job.Kind != jobs.KindTargetQueue && job.Kind != jobs.KindVerifyNLI {
		return river.JobCancel(fmt.Errorf("its worker process died in %d attempts: not run again", n))
	}
	err := doInner(ctx)
	var cancel *river.JobCancelError
	if err != nil && errs.Permanent(err) && !errors.As(err, &cancel) {
		if errs.DataRefused(err) {
			err = fmt.Errorf("the database refuses this job's data, not retried: %w", err)
		}
		return river.JobCancel(err)
	}
	return waitedEnough(job, err)
}

// waitedEnough turns a snooze of a job that has already waited
// errs.MaxSnoozes times into an error: it then counts as an attempt.
func waitedEnough(job *rivertype.JobRow, err error) error {
	var snooze *river.JobSnoozeError
	if n := snoozeCount(job.Metadata); errors.As(err, &snooze) && n >= errs.MaxSnoozes {
		return fmt.Errorf("still waiting after %d snoozes (%s more asked): counted as an attempt", n, snooze.Duration)
	}
	return err
}

// workerDeaths counts the attempts of job whose worker process died under it.
func workerDeaths(job *rivertype.JobRow) int {
	n := 0
	for _, e := range job.Errors {
		if strings.Contains(e.Error, errs.WorkerDied) {
			n++
		}
	}
	return n
}
