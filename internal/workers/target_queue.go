package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
	"github.com/evidencefleet/evidencefleet/internal/ident"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/membudget"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/pageproc"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
	"github.com/evidencefleet/evidencefleet/internal/warc"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TargetQueueWorker works target_queue jobs.
type TargetQueueWorker struct {
	river.WorkerDefaults[jobs.TargetQueueArgs]
	store    *store.Store
	fetcher  *crawl.Fetcher
	embedder models.Embedder // its model id marks the fragments to embed
	llm      models.LLM      // claim extraction
	sources  TargetSources
	pages    PageSettings
	// memory admits each page's work by the bytes it may hold (pageproc:
	// Estimate), from the page in hand until it is stored; nil admits all.
	memory  *membudget.Budget
	observe Observer
	logger  *slog.Logger
}

// NewTargetQueueWorker is the target_queue worker: fetcher takes URLs,
// embedder names the fragments to embed, llm extracts claims (nil: the
// built-in sentence extractor), memory admits pages (nil: all at once); a
// nil observer or logger records nothing.
func NewTargetQueueWorker(st *store.Store, fetcher *crawl.Fetcher, embedder models.Embedder, llm models.LLM, sources TargetSources,
	pages PageSettings, memory *membudget.Budget, observe Observer, log *slog.Logger) *TargetQueueWorker {
	return &TargetQueueWorker{store: st, fetcher: fetcher, embedder: embedder, llm: claimExtractor(llm), sources: sources,
		pages: pages, memory: memory, observe: observer(observe), logger: logger(log)}
}

// Work fetches and processes the target, writing everything and the job's
// completion in one transaction.
func (w *TargetQueueWorker) Work(ctx context.Context, job *river.Job[jobs.TargetQueueArgs]) error {
	target, _ := job.Args.Target.Normalized()
	// Task state first: a job of a missing or stopped task registers,
	// fetches and asks nothing.
	if _, err := w.store.ActiveTask(ctx, job.Args.TaskID); err != nil {
		return err
	}
	tgt, err := w.store.EnsureTarget(ctx, store.EnsureTargetParams{TaskID: job.Args.TaskID, Kind: target.Kind, Value: target.Value})
	if err != nil {
		if isForeignKeyViolation(err) {
			return errs.Task(job.Args.TaskID, errs.ErrTaskNotFound)
		}
		return fmt.Errorf("register target: %w", err)
	}
	if tgt.Status == "extracted" {
		// Extracted once per task, never again.
		return completeAlone(ctx, w.store, job, nil)
	}
	return w.workTarget(ctx, job, tgt, target)
}

// workTarget takes the registered target to its page by its kind,
// processes the page (pageproc) and stores it with the job's completion.
func (w *TargetQueueWorker) workTarget(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], tgt store.EnsureTargetRow, target jobs.Target) (err error) {
	targetID := tgt.ID
	var in pageproc.Input
	var robots *crawl.RobotsCaptures
	switch target.Kind {
	case jobs.TargetQuery:
		return w.workQuery(ctx, job, targetID, target)
	case jobs.TargetDOI:
		var done bool
		var err error
		if in, done, err = w.doiInput(ctx, job, targetID, target.Value); done {
			return err
		}
	case jobs.TargetURL:
		if err := w.refuseBlocked(ctx, job.Args.TaskID, target.Value); err != nil {
			return err
		}
		ctx, robots = crawl.WithRobotsCaptures(ctx)
		defer func() { keepRobots(ctx, w.store, w.logger, job.ID, robots, err) }()
		if err := w.politeTurn(ctx, job, target); err != nil {
			return err
		}
		in = pageproc.URL(w.fetcher, target.Value)
	default:
		return fail(TargetFailed, fmt.Errorf("unknown target kind %q", target.Kind))
	}
	// The page's memory is held from its admission (before it is parsed)
	// until it is stored or has failed.
	hold := w.memory.Hold()
	defer hold.Release()
	in.Memory = hold
	page := pageproc.Process(ctx, in, w.pages.Extract, claimExtractor(w.llm))
	if target.Kind == jobs.TargetURL && page.Status != pageproc.StatusFetchFailed {
		w.observe.Fetch("ok", len(page.Fetch.Body), page.FetchTime.Seconds())
	}
	switch page.Status {
	case pageproc.StatusFetchFailed:
		return w.fetchFailed(target, page)
	case pageproc.StatusUnreadable:
		return &fetchedFailure{Fetch: page.Fetch, Err: fail(TargetFailed, page.Err)}
	case pageproc.StatusNotAdmitted:
		if errors.Is(page.Err, membudget.ErrPageTooLarge) {
			return &fetchedFailure{Fetch: page.Fetch, Err: fail(TargetFailed, page.Err)}
		}
		return fmt.Errorf("wait for page memory (%s): %w", target.Value, page.Err) // the job's context ended: retried
	case pageproc.StatusClaimsFailed:
		if errors.Is(page.Err, remoteerr.ErrUnavailable) {
			w.logger.WarnContext(ctx, "claim extraction waits for the LLM", slog.Int64("job_id", job.ID),
				slog.Int64("task_id", job.Args.TaskID), slog.String("target_kind", target.Kind), slog.String("error", page.Err.Error()))
		}
		return modelErr(page.Err, "extract claims from "+target.Value)
	}
	return w.storePage(ctx, job, tgt, target, page, robots)
}

// fetchFailed records the failed fetch in the metrics and returns its error,
// which the error table classifies: a permanent failure fails the target; a
// server's Retry-After snoozes the job (within ServerWaits); anything else
// is retried.
func (w *TargetQueueWorker) fetchFailed(target jobs.Target, page pageproc.PageResult) error {
	err, fetchSeconds := page.Err, page.FetchTime.Seconds()
	var pe *crawl.PermanentError
	var te *crawl.TransientError
	switch {
	case errors.As(err, &pe):
		w.observe.Fetch(pe.Reason, 0, fetchSeconds)
		return err
	case errors.As(err, &te):
		w.observe.Fetch(te.Reason, 0, fetchSeconds)
	default:
		w.observe.Fetch("error", 0, fetchSeconds)
	}
	return fmt.Errorf("fetch %s: %w", target.Value, err)
}

// storePage writes the processed page for the job's task with one store
// call (store.WritePage), enqueues its follow-ups and completes the job, in
// one transaction.
func (w *TargetQueueWorker) storePage(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], tgt store.EnsureTargetRow, target jobs.Target,
	page pageproc.PageResult, robots *crawl.RobotsCaptures) error {
	var out targetOutput
	pw := pageWrite(page, models.PassageModel(w.embedder), w.pages.Policy)
	pw.Robots = robotsWrites(robots)
	err := w.store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		wr, err := q.WritePage(ctx, pw, pageForTask(job.Args, tgt, target.Kind, page))
		if err != nil {
			return err
		}
		out = outputOf(wr, page)
		if err := insertFollowUps(ctx, tx, job.Args.TaskID, out, w.pages.Embed); err != nil {
			return err
		}
		return completeTx(ctx, tx, job, out)
	})
	if err != nil {
		return fmt.Errorf("store page %s: %w", target.Value, err)
	}
	w.observe.Claims("stored", out.ClaimsNew)
	w.observe.Claims("dropped_quote", out.QuotesRejected)
	w.observe.Claims("dropped_span", out.ClaimsDropped)
	w.logger.InfoContext(ctx, "target extracted", slog.Int64("job_id", job.ID), slog.Int64("task_id", job.Args.TaskID),
		slog.String("target_kind", target.Kind), slog.Int64("page_id", out.PageID),
		slog.Int("fragments", out.Fragments), slog.Int("claims_new", out.ClaimsNew))
	return nil
}

// refuseBlocked fails a URL target whose domain is blocked, by the domain
// policy or by its level in the task's organization's view (the fleet's
// block, or its own), before anything is fetched.
func (w *TargetQueueWorker) refuseBlocked(ctx context.Context, taskID int64, rawURL string) error {
	domain := ident.Domain(rawURL)
	if d := w.pages.Policy.Decide(domain); d.Blocked {
		return fail(TargetFailed, fmt.Errorf("blocked_domain: %s is denied by %s: %s", domain, d.Rule, d.Reason))
	}
	level, err := w.store.DomainTrustLevel(ctx, store.DomainTrustLevelParams{TaskID: taskID, Domain: domain})
	if err != nil {
		return fmt.Errorf("read the level of %s: %w", domain, err)
	}
	if level == domainpolicy.Blocked {
		return fail(TargetFailed, fmt.Errorf("blocked_domain: %s is BLOCKED for this task's organization (enqueue status names the block)", domain))
	}
	return nil
}

// pageWrite is the store's view of a processed page; its domain's level on
// first sight is the policy's.
func pageWrite(r pageproc.PageResult, embedModel string, policy *domainpolicy.Policy) store.PageWrite {
	p := r.Page
	d := policy.Decide(ident.Domain(p.URL))
	pw := store.PageWrite{URL: p.URL, FinalURL: p.FinalURL, Title: p.Title, Fetched: p.Fetched, Status: p.Status,
		ContentType: p.ContentType, FetchedAt: p.FetchedAt, SHA256: p.SHA256, Content: p.Content,
		Identifiers: storeIDs(p.Identifiers), Declared: storeIDs(p.Declared), Linked: storeIDs(r.FollowUps.Cites),
		EmbedModel: embedModel, DomainLevel: store.DomainLevel{Level: d.Level, Source: "policy", Rule: d.Rule}, Quarantine: r.Quarantine}
	for _, f := range p.Fragments {
		pw.Fragments = append(pw.Fragments, store.FragmentSpan{Start: f.Start, End: f.End, Text: f.Text, Heading: f.Heading})
	}
	if a := p.Paper; a != nil {
		pw.Paper = &store.PaperMeta{Title: a.Title, Venue: a.Venue, S2ID: a.S2ID, OpenAlexID: a.OpenAlexID, Year: a.Year, Authors: a.Authors}
	}
	if p.Fetched {
		pw.Capture = captureWrite(p.Capture)
	}
	return pw
}

// keepRobots stores the robots.txt responses a job's fetch read when the
// job ends with err instead of the write that holds them (its domain's
// turn had not come, robots.txt refused the URL, the fetch or the write
// failed): the fetcher now holds that robots.txt for a day and reads it
// from the web no more, so the pages fetched under it would be exported
// without it. Stored alone, each once; a failure is logged, not the job's.
func keepRobots(ctx context.Context, st *store.Store, log *slog.Logger, jobID int64, rc *crawl.RobotsCaptures, err error) {
	rs := robotsWrites(rc)
	if err == nil || len(rs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if serr := st.StoreRobots(ctx, rs); serr != nil {
		log.WarnContext(ctx, "keeping the robots.txt a failed job read failed", slog.Int64("job_id", jobID), slog.String("error", serr.Error()))
	}
}

// robotsWrites are the robots.txt responses a fetch read, as the store
// keeps them.
func robotsWrites(rc *crawl.RobotsCaptures) []store.CaptureWrite {
	var out []store.CaptureWrite
	for _, c := range rc.Captures() {
		out = append(out, *captureWrite(c))
	}
	return out
}

// captureWrite is the store's view of a fetch's capture (nil for a page
// that was not fetched).
func captureWrite(c warc.Capture) *store.CaptureWrite {
	if c.Status == 0 {
		return nil
	}
	w := &store.CaptureWrite{URL: c.URL, CapturedAt: c.Date, Status: c.Status, Header: warc.FormatHeader(c.Header), Body: c.Body}
	if c.Request != nil {
		w.Request = warc.FormatHeader(c.Request)
	}
	return w
}

func storeIDs(ids []extract.Identifier) []store.Identifier {
	out := make([]store.Identifier, len(ids))
	for i, id := range ids {
		out[i] = store.Identifier{Type: id.Type, Value: id.Value}
	}
	return out
}

// pageForTask is the task's part of the page write: the target that
// brought the page (its kind and how it was registered: the page's
// retrieval context) and the claims, each with the fragment holding its
// quote.
func pageForTask(args jobs.TargetQueueArgs, tgt store.EnsureTargetRow, kind string, r pageproc.PageResult) store.PageForTask {
	task := store.PageForTask{TaskID: args.TaskID, TargetID: tgt.ID, TargetKind: kind, Via: tgt.Via, Depth: args.Depth, Extractor: r.Extractor}
	for _, c := range r.Claims {
		f := r.Page.Fragments[c.Fragment]
		task.Claims = append(task.Claims, store.ClaimWrite{Text: c.Text, QuoteStart: c.QuoteStart, QuoteEnd: c.QuoteEnd,
			Confidence: c.Confidence, Fragment: [2]int{f.Start, f.End}})
	}
	return task
}

// outputOf reports what the page write did as the job's output.
func outputOf(wr store.PageWritten, r pageproc.PageResult) targetOutput {
	return targetOutput{PageID: wr.PageID, PageVersionID: wr.VersionID, NewVersion: wr.NewVersion,
		Fragments: wr.Fragments, ClaimsNew: wr.ClaimsNew, ClaimsExisting: wr.ClaimsExisting,
		ClaimsDropped: wr.ClaimsDropped + r.ClaimsDropped, QuotesRejected: r.QuotesRejected, Extractor: r.Extractor,
		Identifiers: wr.Identifiers, ToEmbed: wr.ToEmbed, NewToTask: wr.NewToTask, Academic: r.FollowUps.CitationGraph}
}

// targetOutput is recorded as the job's output and drives the follow-ups.
type targetOutput struct {
	PageID          int64   `json:"page_id"`
	PageVersionID   int64   `json:"page_version_id"`
	NewVersion      bool    `json:"new_version"`
	Fragments       int     `json:"fragments"`
	ClaimsNew       int     `json:"claims_new"`
	ClaimsExisting  int     `json:"claims_existing"`
	ClaimsDropped   int     `json:"claims_dropped"`  // quote found but not inside one fragment
	QuotesRejected  int     `json:"quotes_rejected"` // quote not in the page version (or empty/duplicate)
	Extractor       string  `json:"extractor"`
	Identifiers     int     `json:"identifiers"`
	ToEmbed         []int64 `json:"-"`
	NewToTask       bool    `json:"new_to_task"`
	EmbedJobsQueued int     `json:"embed_jobs"`
	Academic        bool    `json:"academic,omitempty"` // a paper (DOI): its citation graph is queued
}

// insertFollowUps enqueues embed jobs for fragments lacking embeddings and one
// verify_nli for the task, in the caller's transaction.
func insertFollowUps(ctx context.Context, tx pgx.Tx, taskID int64, out targetOutput, cfg EmbedConfig) error {
	client := river.ClientFromContext[pgx.Tx](ctx)
	var params []river.InsertManyParams
	size := cfg.JobSize
	if size <= 0 {
		size = 256
	}
	for start := 0; start < len(out.ToEmbed); start += size {
		end := min(start+size, len(out.ToEmbed))
		params = append(params, river.InsertManyParams{Args: jobs.EmbedArgs{TaskID: taskID, FragmentIDs: out.ToEmbed[start:end]}})
	}
	pageID := out.PageID
	params = append(params, river.InsertManyParams{Args: jobs.VerifyNLIArgs{TaskID: taskID, PageID: &pageID}})
	if out.Academic {
		// Every academic page's citation graph, whatever found the page (unique per task and page).
		params = append(params, river.InsertManyParams{Args: jobs.CitationGraphArgs{TaskID: taskID, PageID: pageID}})
	}
	if _, err := client.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("enqueue follow-ups: %w", err)
	}
	return nil
}

// completeAlone completes a job that has nothing to write but its output
// (nil: none).
func completeAlone[T river.JobArgs](ctx context.Context, s *store.Store, job *river.Job[T], output any) error {
	return s.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error { return completeTx(ctx, tx, job, output) })
}
