package workers

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/academic/papers"
	"github.com/evidencefleet/evidencefleet/internal/search"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// queryOutput is recorded as a query target's job output.
type queryOutput struct {
	Results    int `json:"results"`     // result URLs the search returned
	Registered int `json:"registered"`  // results fetched now that were new to the task
	Known      int `json:"known"`       // results fetched now that the task had already (their job exists, or was deferred)
	Invalid    int `json:"invalid_url"` // result URLs refused by URL normalisation
	Papers     int `json:"papers"`      // DOIs from the academic search (an academic query)
}

// workQuery asks the search backend and registers its result URLs as url
// targets of the task with one store call (store.WriteQuerySearch), then
// inserts the target_queue jobs of those fetched now, one level deeper,
// and completes, in one transaction. With args.Fetch > 0 only the first
// Fetch results are fetched now; the others wait, deferred, for the task's
// retrieval planner. Targets are unique per task and their jobs unique per
// task and target, so a URL two queries return is fetched once.
func (w *TargetQueueWorker) workQuery(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], targetID int64, target jobs.Target) error {
	scholarly := w.sources.Scholar != nil && papers.LooksAcademic(target.Value)
	if w.sources.Search == nil && !scholarly {
		w.observe.Search("not_configured")
		return fail(TargetFailed, search.ErrNotConfigured)
	}
	out, targets, webErr := w.searchTargets(ctx, job, target.Value, scholarly)
	if webErr != nil && len(targets) == 0 {
		err := fmt.Errorf("search %q: %w", target.Value, webErr)
		if ctx.Err() != nil {
			return fail(TargetFailed, err)
		}
		// A refusal fails the target (search.StatusError names its row); a
		// busy backend's Retry-After snoozes the job; the network is retried
		// and its last attempt fails the target.
		return err
	}
	now, later := targets, []jobs.Target(nil)
	if f := job.Args.Fetch; f > 0 && len(targets) > f {
		now, later = targets[:f], targets[f:]
	}
	err := w.store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		written, err := q.WriteQuerySearch(ctx, store.QuerySearch{TaskID: job.Args.TaskID, TargetID: targetID,
			Query: target.Value, Results: out.Results, Fetch: targetRefs(now), Deferred: targetRefs(later)})
		if err != nil {
			return err
		}
		out.Registered, out.Known = written.Registered, written.Known
		if len(now) > 0 {
			params := make([]river.InsertManyParams, len(now))
			for i, t := range now {
				params[i] = river.InsertManyParams{Args: jobs.TargetQueueArgs{TaskID: job.Args.TaskID, Target: t, Depth: job.Args.Depth + 1}}
			}
			if _, err := river.ClientFromContext[pgx.Tx](ctx).InsertManyTx(ctx, tx, params); err != nil {
				return fmt.Errorf("insert target_queue jobs: %w", err)
			}
		}
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

// targetRefs are the store's names of ts.
func targetRefs(ts []jobs.Target) []store.TargetRef {
	out := make([]store.TargetRef, len(ts))
	for i, t := range ts {
		out[i] = store.TargetRef{Kind: t.Kind, Value: t.Value}
	}
	return out
}
