package workers

import (
	"context"
	"errors"

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
// (errs.Permanent: a missing or stopped task, a missing page, bad input),
// cancel the job at once with the reason recorded, instead of retrying it.
type permanentErrors struct{ river.MiddlewareDefaults }

var _ rivertype.WorkerMiddleware = (*permanentErrors)(nil)

func (*permanentErrors) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	if _, err := jobs.ParseArgs(job.Kind, job.EncodedArgs); err != nil {
		return river.JobCancel(err)
	}
	err := doInner(ctx)
	var cancel *river.JobCancelError
	if err != nil && errs.Permanent(err) && !errors.As(err, &cancel) {
		return river.JobCancel(err)
	}
	return err
}
