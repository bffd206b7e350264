package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/membudget"
	"github.com/evidencefleet/evidencefleet/internal/pageproc"
	"github.com/evidencefleet/evidencefleet/internal/recheck"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// RecheckSettings tune the recheck of cited sources (ARCHITECTURE.md §5.10).
type RecheckSettings struct {
	// Every is a task's interval between rounds unless it sets its own
	// (weekly); 0: only tasks that set one are rechecked.
	Every time.Duration
	// MaxAge: a task created longer ago is no longer rechecked (90 days).
	MaxAge time.Duration
	// DailyFetches bounds the fleet's recheck fetches a UTC day (10,000).
	DailyFetches int
}

// Bounds of one recheck job's work.
const (
	// recheckSweepTasks: rounds one sweep starts; the next sweep starts
	// the rest.
	recheckSweepTasks = 1000
	// recheckRoundPages: page jobs one round job enqueues; a continuation
	// enqueues the rest.
	recheckRoundPages = 1000
	// maxPageCitations: the spans of one page one job classifies (a
	// version has at most EVF_PAGE_MAX_FRAGMENTS passages and 20 quotes);
	// placing 200 edited spans in a 1 MB page takes about 5 s
	// (BenchmarkCheckEditedPage), so these stay well inside a job's time.
	maxPageCitations = 5000
)

// RecheckBudget is the reason of a recheck's politeness wait when the
// fleet's recheck fetches of the UTC day are used up.
const RecheckBudget = "recheck_budget"

// RecheckWorker works recheck jobs: the sweep, a task's round, a page.
type RecheckWorker struct {
	river.WorkerDefaults[jobs.RecheckArgs]
	store    *store.Store
	fetcher  *crawl.Fetcher
	pages    PageSettings
	settings RecheckSettings
	memory   *membudget.Budget
	observe  Observer
	logger   *slog.Logger
}

// NewRecheckWorker is the recheck worker: fetcher takes the pages again
// (with the fleet's politeness, as targets), pages says how their text is
// read, memory admits them (nil: all at once); a nil observer or logger
// records nothing.
func NewRecheckWorker(st *store.Store, fetcher *crawl.Fetcher, pages PageSettings, settings RecheckSettings,
	memory *membudget.Budget, observe Observer, log *slog.Logger) *RecheckWorker {
	return &RecheckWorker{store: st, fetcher: fetcher, pages: pages, settings: settings, memory: memory,
		observe: observer(observe), logger: logger(log)}
}

// Work runs the job as what it is: the sweep, a round or a page.
func (w *RecheckWorker) Work(ctx context.Context, job *river.Job[jobs.RecheckArgs]) error {
	switch {
	case job.Args.IsSweep():
		return w.sweep(ctx, job)
	case job.Args.IsPage():
		return w.checkPage(ctx, job)
	default:
		return w.round(ctx, job)
	}
}

// RecheckRoundsOutput is the output of the sweep and of a round: the
// rounds started, or the page jobs enqueued (and whether a continuation
// goes on).
type RecheckRoundsOutput struct {
	Rounds    int  `json:"rounds,omitempty"`
	Pages     int  `json:"pages,omitempty"`
	Enqueued  int  `json:"enqueued"`
	Continued bool `json:"continued,omitempty"`
}

// sweep starts a round of every task that is due, at most
// recheckSweepTasks, in one transaction with its completion.
func (w *RecheckWorker) sweep(ctx context.Context, job *river.Job[jobs.RecheckArgs]) error {
	var out RecheckRoundsOutput
	err := w.store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		ids, err := q.StartDueRechecks(ctx, store.StartDueRechecksParams{MaxAge: interval(w.settings.MaxAge),
			DefaultEvery: interval(w.settings.Every), MaxRows: recheckSweepTasks})
		if err != nil {
			return fmt.Errorf("start the due rounds: %w", err)
		}
		params := make([]river.InsertManyParams, len(ids))
		for i, id := range ids {
			params[i] = river.InsertManyParams{Args: jobs.RecheckArgs{TaskID: id}}
		}
		out.Rounds = len(ids)
		if out.Enqueued, err = insertMany(ctx, tx, params); err != nil {
			return fmt.Errorf("enqueue the rounds: %w", err)
		}
		return completeTx(ctx, tx, job, out)
	})
	if err != nil {
		return fmt.Errorf("recheck sweep: %w", err)
	}
	return nil
}

// round enqueues a job for each page the task cites, at most
// recheckRoundPages from PageFrom on and a continuation for the rest; its
// first job records the round's start.
func (w *RecheckWorker) round(ctx context.Context, job *river.Job[jobs.RecheckArgs]) error {
	task := job.Args.TaskID
	var out RecheckRoundsOutput
	err := w.store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		if job.Args.PageFrom == 0 {
			if _, err := q.StartRecheckRound(ctx, task); errors.Is(err, pgx.ErrNoRows) {
				return errs.Task(task, errs.ErrTaskNotFound)
			} else if err != nil {
				return fmt.Errorf("start the round: %w", err)
			}
		}
		pages, err := q.TaskCitedPages(ctx, store.TaskCitedPagesParams{TaskID: task, After: job.Args.PageFrom, MaxRows: recheckRoundPages + 1})
		if err != nil {
			return fmt.Errorf("the task's cited pages: %w", err)
		}
		params := make([]river.InsertManyParams, 0, len(pages))
		for i, p := range pages {
			if i == recheckRoundPages {
				params = append(params, river.InsertManyParams{Args: jobs.RecheckArgs{TaskID: task, PageFrom: pages[i-1]}})
				out.Continued = true
				break
			}
			params = append(params, river.InsertManyParams{Args: jobs.RecheckArgs{TaskID: task, PageID: p}})
			out.Pages++
		}
		if out.Enqueued, err = insertMany(ctx, tx, params); err != nil {
			return fmt.Errorf("enqueue the pages: %w", err)
		}
		return completeTx(ctx, tx, job, out)
	})
	if err != nil {
		return fmt.Errorf("recheck round of task %d: %w", task, err)
	}
	return nil
}

// RecheckPageOutput is the output of a page's recheck.
type RecheckPageOutput struct {
	Outcome    string         `json:"outcome"`
	HTTPStatus int            `json:"http_status,omitempty"`
	FinalURL   string         `json:"final_url,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	NewVersion bool           `json:"new_version"`
	VersionID  int64          `json:"page_version_id,omitempty"`
	Citations  map[string]int `json:"citations"` // by state
	Skipped    string         `json:"skipped,omitempty"`
}

// checkPage fetches the page again and classifies every span the task
// cites in it, storing what it saw with the job's completion.
func (w *RecheckWorker) checkPage(ctx context.Context, job *river.Job[jobs.RecheckArgs]) (err error) {
	a := job.Args
	pg, err := w.store.PageToRecheck(ctx, store.PageToRecheckParams{TaskID: a.TaskID, PageID: a.PageID})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fail(PageNotFound, fmt.Errorf("page %d does not exist", a.PageID))
	case err != nil:
		return fmt.Errorf("read page %d: %w", a.PageID, err)
	case pg.TaskStatus == "":
		return errs.Task(a.TaskID, errs.ErrTaskNotFound)
	case pg.TaskStatus == "stopped":
		return errs.Task(a.TaskID, errs.ErrTaskStopped)
	case pg.AbstractOnly:
		return completeAlone(ctx, w.store, job, RecheckPageOutput{Skipped: "an academic API's abstract: no page to fetch again"})
	}
	cites, err := w.store.PageCitations(ctx, store.PageCitationsParams{TaskID: a.TaskID, PageID: a.PageID, MaxRows: maxPageCitations})
	if err != nil {
		return fmt.Errorf("the task's citations of page %d: %w", a.PageID, err)
	}
	if len(cites) == 0 {
		return completeAlone(ctx, w.store, job, RecheckPageOutput{Skipped: "the task cites nothing in the page any more"})
	}
	var ids []int64
	for _, c := range cites {
		if len(ids) == 0 || ids[len(ids)-1] != c.PageVersionID { // in version order
			ids = append(ids, c.PageVersionID)
		}
	}
	versions, err := w.store.CitedVersions(ctx, ids)
	if err != nil {
		return fmt.Errorf("the cited versions of page %d: %w", a.PageID, err)
	}
	ctx, robots := crawl.WithRobotsCaptures(ctx)
	defer func() { keepRobots(ctx, w.store, w.logger, job.ID, robots, err) }()
	write, err := w.see(ctx, job, pg.Url, versions)
	if err != nil {
		return err
	}
	write.Robots = robotsWrites(robots)
	write.Citations = findings(write, cites, versions)
	return w.store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		done, err := q.WriteRecheck(ctx, write)
		if err != nil {
			return fmt.Errorf("store the recheck of %s: %w", pg.Url, err)
		}
		for state, n := range done.States {
			w.observe.Rechecked(state, n)
		}
		return completeTx(ctx, tx, job, RecheckPageOutput{Outcome: write.Outcome, HTTPStatus: write.HTTPStatus, FinalURL: write.FinalURL,
			Reason: write.Reason, NewVersion: done.NewVersion, VersionID: done.VersionID, Citations: done.States})
	})
}

// see fetches the page again, politely and within the fleet's daily
// budget, and says what answered: a text (unchanged or moved), gone,
// unreachable for good (with the reason); a transient failure is returned,
// to be retried with backoff (the last attempt's failure records the
// page unreachable: the middleware's recheckUnreachable).
func (w *RecheckWorker) see(ctx context.Context, job *river.Job[jobs.RecheckArgs], url string, versions []store.CitedVersionsRow) (store.RecheckWrite, error) {
	write := store.RecheckWrite{TaskID: job.Args.TaskID, PageID: job.Args.PageID, JobID: job.ID, URL: url, CheckedAt: time.Now().UTC()}
	// The day's budget first, then the domain's turn: a fetch the budget
	// holds back takes no turn of its domain, and one whose turn has not
	// come gives its budget back.
	if err := w.reserveFetch(ctx); err != nil {
		return write, err
	}
	turn := fetchTurn{store: w.store, fetcher: w.fetcher, policy: w.pages.Policy, observe: w.observe, logger: w.logger}
	robots, err := turn.take(ctx, job.ID, url)
	if err != nil || robots != nil {
		if rerr := w.store.RefundRecheckFetch(ctx); rerr != nil {
			w.logger.WarnContext(ctx, "giving a recheck fetch back failed", slog.Int64("job_id", job.ID), slog.String("error", rerr.Error()))
		}
	}
	if err != nil {
		return write, err
	}
	if robots != nil { // refused for good (unreachable), or to be retried
		return w.fetchFailed(write, robots)
	}
	hold := w.memory.Hold()
	defer hold.Release()
	in := pageproc.URL(w.fetcher, url)
	in.Memory = hold
	page := pageproc.Read(ctx, in, w.pages.Extract)
	switch page.Status {
	case pageproc.StatusOK:
	case pageproc.StatusFetchFailed:
		return w.fetchFailed(write, page.Err)
	case pageproc.StatusNotAdmitted:
		if !errors.Is(page.Err, membudget.ErrPageTooLarge) {
			return write, fmt.Errorf("wait for page memory (%s): %w", url, page.Err) // the job's context ended: retried
		}
		return unreachable(write, page.Err)
	default: // no text to read
		return unreachable(write, page.Err)
	}
	w.observe.Fetch("ok", len(page.Fetch.Body), page.FetchTime.Seconds())
	p := page.Page
	write.Outcome, write.HTTPStatus, write.FinalURL = string(recheck.Unchanged), p.Status, p.FinalURL
	if moved(page.Fetch, versions) {
		write.Outcome = string(recheck.Moved)
	}
	write.CheckedAt = p.FetchedAt
	write.Seen = &store.SeenVersion{SHA256: p.SHA256, Content: p.Content, FetchedAt: p.FetchedAt, Capture: captureWrite(p.Capture)}
	return write, nil
}

// reserveFetch takes one of the fleet's recheck fetches of the UTC day, or
// says to come back at the next UTC midnight.
func (w *RecheckWorker) reserveFetch(ctx context.Context) error {
	_, err := w.store.ReserveRecheckFetch(ctx, int32(max(1, w.settings.DailyFetches)))
	if !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	now := time.Now().UTC()
	midnight := now.Truncate(24 * time.Hour).Add(24 * time.Hour)
	w.observe.PoliteWait(RecheckBudget)
	return fail(PoliteWait, &PoliteWaitError{Domain: "the fleet's rechecks", Reason: RecheckBudget, At: now, Wait: midnight.Sub(now),
		Budget: w.settings.DailyFetches})
}

// fetchFailed is the write of a fetch that failed for good (gone: 404 or
// 410; else unreachable, with the reason), or the transient failure to
// retry.
func (w *RecheckWorker) fetchFailed(write store.RecheckWrite, err error) (store.RecheckWrite, error) {
	var pe *crawl.PermanentError
	if !errors.As(err, &pe) {
		var te *crawl.TransientError
		if errors.As(err, &te) {
			w.observe.Fetch(te.Reason, 0, 0)
		}
		return write, fmt.Errorf("fetch %s again: %w", write.URL, err)
	}
	w.observe.Fetch(pe.Reason, 0, 0)
	var se *crawl.StatusError
	if errors.As(err, &se) && (se.Status == http.StatusNotFound || se.Status == http.StatusGone) {
		write.Outcome, write.HTTPStatus, write.FinalURL, write.Reason = string(recheck.Gone), se.Status, se.URL, pe.Reason
		return write, nil
	}
	if errors.As(err, &se) {
		write.HTTPStatus = se.Status
	}
	return unreachable(write, err)
}

// unreachable is the write of a page no answer may be had from, and why.
func unreachable(write store.RecheckWrite, why error) (store.RecheckWrite, error) {
	write.Outcome, write.Reason = string(recheck.Unreachable), why.Error()
	return write, nil
}

// moved reports whether the page moved for good since it was cited: a
// permanent redirect to an address none of the cited versions came from.
func moved(res *crawl.Result, versions []store.CitedVersionsRow) bool {
	if !res.Moved() {
		return false
	}
	for _, v := range versions {
		if v.CapturedUrl == res.FinalURL {
			return false
		}
	}
	return true
}

// findings classifies each cited span against what was seen, in the
// text of its version.
func findings(write store.RecheckWrite, cites []store.PageCitationsRow, versions []store.CitedVersionsRow) []store.CitationFinding {
	text := ""
	if write.Seen != nil {
		text = write.Seen.Content
	}
	seen := recheck.NewSeen(recheck.State(write.Outcome), text)
	texts := make(map[int64][]rune, len(versions))
	for _, v := range versions {
		texts[v.ID] = []rune(v.Content)
	}
	out := make([]store.CitationFinding, 0, len(cites))
	for _, c := range cites {
		text := texts[c.PageVersionID]
		f := store.CitationFinding{PageVersionID: c.PageVersionID, Start: c.StartChar, End: c.EndChar, State: string(recheck.Unreachable)}
		if int(c.EndChar) <= len(text) && c.StartChar < c.EndChar {
			found := recheck.Check(seen, text, recheck.Span{Start: int(c.StartChar), End: int(c.EndChar)})
			f.State, f.Found, f.Around = string(found.State), spanOf(found.Found), spanOf(found.Around)
		}
		out = append(out, f)
	}
	return out
}

func spanOf(s *recheck.Span) *[2]int32 {
	if s == nil {
		return nil
	}
	return &[2]int32{int32(s.Start), int32(s.End)}
}

// interval is a duration as Postgres takes it.
func interval(d time.Duration) pgtype.Interval {
	return pgtype.Interval{Microseconds: d.Microseconds(), Valid: true}
}

// insertMany inserts the jobs in tx and counts those not skipped as
// duplicates of waiting ones.
func insertMany(ctx context.Context, tx pgx.Tx, params []river.InsertManyParams) (int, error) {
	if len(params) == 0 {
		return 0, nil
	}
	res, err := river.ClientFromContext[pgx.Tx](ctx).InsertManyTx(ctx, tx, params)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range res {
		if !r.UniqueSkippedAsDuplicate {
			n++
		}
	}
	return n, nil
}
