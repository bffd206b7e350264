package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/academic/papers"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/search"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// queryOutput is recorded as a query target's job output.
type queryOutput struct {
	Results    int `json:"results"`     // result URLs the search returned
	Registered int `json:"registered"`  // url targets registered with a new job
	Known      int `json:"known"`       // result URLs the task had already (their job exists)
	Invalid    int `json:"invalid_url"` // result URLs refused by URL normalisation
	Papers     int `json:"papers"`      // DOIs from the academic search (an academic query)
}

// workQuery asks the search backend and registers its result URLs as url
// targets of the task, one level deeper, each with its target_queue job, in
// one store call (store.WriteQuerySearch) with the job's completion.
// Targets are unique per task and their jobs unique per task and target, so
// a URL two queries return is fetched once.
func (w *TargetQueueWorker) workQuery(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], targetID int64, target jobs.Target) error {
	scholarly := w.sources.Scholar != nil && papers.LooksAcademic(target.Value)
	if w.sources.Search == nil && !scholarly {
		w.observe.Search("not_configured")
		return fail(TargetFailed, search.ErrNotConfigured)
	}
	out, targets, webErr := w.searchTargets(ctx, job, target.Value, scholarly)
	if webErr != nil && len(targets) == 0 {
		err := fmt.Errorf("search %q: %w", target.Value, webErr)
		var se *search.StatusError
		if errors.As(webErr, &se) && !se.Temporary() || ctx.Err() != nil {
			return fail(TargetFailed, err) // a refusal: asking again gets the same answer
		}
		return err // busy (Retry-After: a snooze) or the network: retried, the last attempt fails the target
	}
	err := w.store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		written, err := q.WriteQuerySearch(ctx, store.QuerySearch{TaskID: job.Args.TaskID, TargetID: targetID,
			Query: target.Value, Results: out.Results, Register: registerResults(tx, job.Args, targetID, targets)})
		if err != nil {
			return err
		}
		out.Registered, out.Known = written.Registered, written.Known
		return completeTx(ctx, tx, job, out)
	})
	if err != nil {
		return fmt.Errorf("register results of %q: %w", target.Value, err)
	}
	w.logger.InfoContext(ctx, "query searched", slog.Int64("job_id", job.ID), slog.String("query", target.Value),
		slog.Int("results", out.Results), slog.Int("registered", out.Registered), slog.Int("known", out.Known))
	return nil
}

// searchTargets asks the web search backend and, for an academic query, the
// academic APIs: the result URLs become url targets and the papers' DOIs
// doi targets, each once. webErr is the web search's failure; the academic
// search's is logged (it only adds targets).
func (w *TargetQueueWorker) searchTargets(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], query string, scholarly bool) (out queryOutput, targets []jobs.Target, webErr error) {
	limit := w.sources.SearchResults
	if limit <= 0 {
		limit = 10
	}
	seen := map[string]bool{}
	add := func(t jobs.Target) {
		if !seen[t.Kind+" "+t.Value] {
			seen[t.Kind+" "+t.Value] = true
			targets = append(targets, t)
		}
	}
	if w.sources.Search != nil {
		results, err := w.sources.Search.Search(ctx, query, limit)
		if err != nil {
			w.observe.Search("error")
			webErr = err
		} else {
			w.observe.Search("ok")
			out.Results = len(results)
			for _, r := range results {
				t, err := jobs.Target{Kind: jobs.TargetURL, Value: r.URL}.Normalized()
				if err != nil {
					out.Invalid++
					continue
				}
				add(t)
			}
		}
	}
	if scholarly {
		// Research literature: the academic APIs' papers become doi targets;
		// after that starting point they go the same path as any target.
		dois, err := w.sources.Scholar.SearchDOIs(ctx, query, limit)
		if err != nil {
			w.observe.Academic("search", "unavailable")
			w.logger.WarnContext(ctx, "academic search skipped", slog.Int64("job_id", job.ID), slog.String("error", err.Error()))
		} else {
			w.observe.Academic("search", "ok")
			out.Papers = len(dois)
			for _, doi := range dois {
				add(jobs.Target{Kind: jobs.TargetDOI, Value: doi})
			}
		}
	}
	return out, targets, webErr
}

// registerResults is the QuerySearch.Register of a query's targets: they
// enter the task as the query target's results, one level deeper than the
// query, with their target_queue jobs (intake.AddQueryResults), in tx. nil
// when there are none.
func registerResults(tx pgx.Tx, args jobs.TargetQueueArgs, queryTargetID int64, targets []jobs.Target) func(context.Context) (int, int, error) {
	if len(targets) == 0 {
		return nil
	}
	return func(ctx context.Context) (registered, known int, err error) {
		res, err := intake.AddQueryResults(ctx, river.ClientFromContext[pgx.Tx](ctx), tx, args.TaskID, queryTargetID, args.Depth, args.Fetch, targets)
		if err != nil {
			return 0, 0, err
		}
		for _, r := range res {
			if r.UniqueSkippedAsDuplicate {
				known++
			} else {
				registered++
			}
		}
		return registered, known, nil
	}
}
