package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/pageproc"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// The doi branch of target_queue: a DOI the graph knows is its page;
// another is resolved through the academic APIs to its paper's abstract
// page.

// doiInput is a doi target's page: the latest version of the page the DOI
// already is (it then goes the url path: claims for this task, task_pages),
// as a fetch of its own URL would give it, or the abstract page of the
// paper the academic APIs resolve it to. done means the job is finished
// with err.
func (w *TargetQueueWorker) doiInput(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], targetID int64, doi string) (in pageproc.Input, done bool, err error) {
	known, ok, err := w.store.KnownDOIVersion(ctx, doi)
	if err != nil {
		return in, true, err
	}
	if ok {
		return pageproc.StoredDOI(doi, known.Url, known.Content, known.FetchedAt), false, nil
	}
	paper, failed := w.resolveDOI(ctx, job, targetID, doi)
	if paper == nil {
		return in, true, failed
	}
	return pageproc.FromPaper(paper), false, nil
}

// resolveDOI asks the academic APIs for a DOI unknown to the graph. When it
// returns no paper, the job is finished with the returned error: the target
// failed (not found, no API configured or reachable — the fleet goes on) or
// the job was cancelled.
func (w *TargetQueueWorker) resolveDOI(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], targetID int64, doi string) (*academic.Paper, error) {
	log := w.logger.With(slog.Int64("job_id", job.ID), slog.String("doi", doi))
	if w.sources.Papers == nil {
		w.observe.Academic("doi", "skipped")
		log.WarnContext(ctx, "DOI target skipped: not a known page and no academic API is configured")
		return nil, fail(TargetFailed, fmt.Errorf("DOI %s is not a known page and no academic API is configured to resolve it (EVF_S2_URL, EVF_OPENALEX_URL)", doi))
	}
	paper, err := w.sources.Papers.ResolveDOI(ctx, doi)
	switch {
	case err == nil:
		w.observe.Academic("doi", "ok")
		return paper, nil
	case errors.Is(err, remoteerr.ErrNotFound):
		w.observe.Academic("doi", "not_found")
		return nil, fail(TargetFailed, fmt.Errorf("DOI %s: not found in the academic APIs", doi))
	default:
		w.observe.Academic("doi", "unavailable")
		log.WarnContext(ctx, "DOI target skipped: academic APIs unreachable", slog.String("error", err.Error()))
		return nil, fail(TargetFailed, fmt.Errorf("DOI %s: academic APIs unreachable after retries: %w", doi, err))
	}
}
