package workers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/academic/papers"
	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
	"github.com/evidencefleet/evidencefleet/internal/search"
	"github.com/evidencefleet/evidencefleet/internal/textclip"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TargetQueueWorker works target_queue jobs.
type TargetQueueWorker struct {
	river.WorkerDefaults[jobs.TargetQueueArgs]
	Store         *store.Store
	Fetcher       *crawl.Fetcher
	Embedder      models.Embedder // its model id marks the fragments to embed
	LLM           models.LLM      // claim extraction; nil: the built-in sentence extractor
	Papers        PaperResolver
	Scholar       ScholarSearch
	Search        search.Searcher
	SearchResults int
	Extract       ExtractConfig
	Embed         EmbedConfig
	Waits         ServerWaits
	Metrics       *metrics.Metrics
	Logger        *slog.Logger
}

// Work fetches and processes the target, writing everything and the job's
// completion in one transaction.
func (w *TargetQueueWorker) Work(ctx context.Context, job *river.Job[jobs.TargetQueueArgs]) error {
	target, _ := job.Args.Target.Normalized()
	// Task state first: a job of a missing or stopped task registers,
	// fetches and asks nothing.
	if _, err := w.Store.ActiveTask(ctx, job.Args.TaskID); err != nil {
		return err
	}
	tgt, err := w.Store.EnsureTarget(ctx, store.EnsureTargetParams{TaskID: job.Args.TaskID, Kind: target.Kind, Value: target.Value})
	if err != nil {
		if isForeignKeyViolation(err) {
			return errs.Task(job.Args.TaskID, errs.ErrTaskNotFound)
		}
		return fmt.Errorf("register target: %w", err)
	}
	if tgt.Status == "extracted" {
		// Extracted once per task, never again.
		return completeAlone(ctx, w.Store, job)
	}
	if n := workerDeaths(job.JobRow); n >= errs.MaxWorkerDeaths {
		return w.failTarget(ctx, job, tgt.ID, nil, fmt.Errorf("its worker process died in %d attempts (a page that exhausts the worker?): not fetched again", n))
	}
	return w.settle(ctx, job, tgt.ID, w.workTarget(ctx, job, tgt.ID, target))
}

// settle ends the job for good when its error can never pass: data Postgres
// refuses (a retry stores the same data), or a failure on the job's last
// attempt. The target is then failed with the reason and the job cancelled,
// so no target_queue job ends discarded with its target left "seen". When
// even the failure cannot be recorded, the job is cancelled all the same.
func (w *TargetQueueWorker) settle(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], targetID int64, err error) error {
	var cancel *river.JobCancelError
	var snooze *river.JobSnoozeError
	var cause error
	err = waitedEnough(job.JobRow, err) // a snooze past errs.MaxSnoozes is a failed attempt
	switch {
	case err == nil, errors.As(err, &cancel), errors.As(err, &snooze),
		errors.Is(err, errs.ErrTaskNotFound), errors.Is(err, errs.ErrTaskStopped):
		return err // the task's state, not the target's: the middleware cancels
	case errs.DataRefused(err):
		cause = fmt.Errorf("the database refuses this target's data: %w", err)
	case errs.Permanent(err):
		cause = err
	case job.Attempt >= job.MaxAttempts:
		cause = fmt.Errorf("giving up after %d attempts: %w", job.Attempt, err)
	default:
		return err
	}
	failed := w.failTarget(ctx, job, targetID, nil, cause)
	if !errors.As(failed, &cancel) {
		return river.JobCancel(fmt.Errorf("%w (recording the failure failed too: %v)", cause, failed))
	}
	return failed
}

// workTarget resolves the target to a page by its kind and stores it.
func (w *TargetQueueWorker) workTarget(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], targetID int64, target jobs.Target) error {
	var res *crawl.Result
	var err error
	var resolved *academic.Paper
	fromStore := false
	switch target.Kind {
	case jobs.TargetQuery:
		return w.workQuery(ctx, job, targetID, target)
	case jobs.TargetDOI:
		// A doi target of a paper that is already a page starts from its
		// latest version, as a fetch of its own URL would give it, and goes
		// the url path (claims for this task, task_pages).
		known, ok, err := w.Store.KnownDOIVersion(ctx, target.Value)
		if err != nil {
			return err
		}
		if ok {
			res = &crawl.Result{URL: known.Url, FinalURL: known.Url, Status: 200, ContentType: "text/plain",
				Body: []byte(known.Content), FetchedAt: known.FetchedAt}
			fromStore = true
			break
		}
		paper, failed := w.resolveDOI(ctx, job, targetID, target.Value)
		if paper == nil {
			return failed
		}
		res, resolved = paperResult(paper), paper
	case jobs.TargetURL:
		var done bool
		res, done, err = w.fetch(ctx, job, targetID, target)
		if done {
			return err
		}
	default:
		return w.failTarget(ctx, job, targetID, nil, fmt.Errorf("unknown target kind %q", target.Kind))
	}

	page, err := processPage(res, w.Extract)
	if err != nil {
		return w.failTarget(ctx, job, targetID, res, err)
	}
	if fromStore {
		page.fromStore = true
		page.identifiers = append(page.identifiers, extract.Identifier{Type: extract.IDDOI, Value: target.Value})
	}
	if resolved != nil {
		page.paper = resolved
		page.identifiers = append(page.identifiers, paperIdentifiers(resolved)...)
	}
	return w.extractAndStore(ctx, job, targetID, target, res, page)
}

// fetch fetches a url target. done means the job is finished with err (a
// failed target, a snooze or a retry); otherwise res is the page.
func (w *TargetQueueWorker) fetch(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], targetID int64, target jobs.Target) (res *crawl.Result, done bool, err error) {
	log := logger(w.Logger).With(slog.Int64("job_id", job.ID), slog.Int64("task_id", job.Args.TaskID))
	fetchStart := time.Now()
	res, err = w.Fetcher.Fetch(ctx, target.Value)
	fetchSeconds := time.Since(fetchStart).Seconds()
	if err != nil {
		var pe *crawl.PermanentError
		var te *crawl.TransientError
		switch {
		case errors.As(err, &pe):
			w.Metrics.Fetch(pe.Reason, 0, fetchSeconds)
			return nil, true, w.failTarget(ctx, job, targetID, nil, err)
		case errors.As(err, &te):
			w.Metrics.Fetch(te.Reason, 0, fetchSeconds)
		default:
			w.Metrics.Fetch("error", 0, fetchSeconds)
		}
		if asked, ok := crawl.RetryAfter(err); ok {
			if wait, ok := w.Waits.snooze(job.JobRow, asked); ok {
				log.InfoContext(ctx, "fetch asked to retry later", slog.Duration("retry_after", asked), slog.Duration("wait", wait))
				return nil, true, river.JobSnooze(wait)
			}
		}
		return nil, true, fmt.Errorf("fetch %s: %w", target.Value, err)
	}
	w.Metrics.Fetch("ok", len(res.Body), fetchSeconds)
	return res, false, nil
}

// extractAndStore extracts the claims of a processed page and stores
// everything, with the job's completion, in one transaction.
func (w *TargetQueueWorker) extractAndStore(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], targetID int64, target jobs.Target, res *crawl.Result, page processedPage) error {
	log := logger(w.Logger).With(slog.Int64("job_id", job.ID), slog.Int64("task_id", job.Args.TaskID),
		slog.String("target_kind", target.Kind))
	proposed, err := claimExtractor(w.LLM).ExtractClaims(ctx, models.ClaimRequest{
		URL: res.FinalURL, Title: page.doc.Title, Text: page.doc.Text, MaxClaims: page.maxClaims})
	if err != nil {
		if errors.Is(err, remoteerr.ErrUnavailable) {
			log.WarnContext(ctx, "claim extraction waits for the LLM", slog.String("error", err.Error()))
		}
		return modelWait(err, "extract claims from "+target.Value)
	}
	page.acceptClaims(proposed)
	page.extractor = claimExtractor(w.LLM).Model()

	var out targetOutput
	err = w.Store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		var err error
		out, err = writePage(ctx, q, job.Args, targetID, res, page, w.Embedder.Model())
		if err != nil {
			return err
		}
		out.Extractor = claimExtractor(w.LLM).Model()
		if err := insertFollowUps(ctx, tx, job.Args.TaskID, out, w.Embed); err != nil {
			return err
		}
		return completeTx(ctx, tx, job, out)
	})
	if err != nil {
		return fmt.Errorf("store page %s: %w", target.Value, err)
	}
	w.Metrics.Claims("stored", out.ClaimsNew)
	w.Metrics.Claims("dropped_quote", out.QuotesRejected)
	w.Metrics.Claims("dropped_span", out.ClaimsDropped)
	log.InfoContext(ctx, "target extracted", slog.Int64("page_id", out.PageID),
		slog.Int("fragments", out.Fragments), slog.Int("claims_new", out.ClaimsNew))
	return nil
}

// processedPage is the pure result of extracting one fetched page.
type processedPage struct {
	doc           extract.Document
	sha           string
	fragments     []extract.Fragment
	identifiers   []extract.Identifier // verified ids: from an academic API, or the id the page was found by
	declared      []extract.Identifier // ids the page states about itself (meta tags): unverified claims
	claims        []extract.ExtractedClaim
	claimFragment []int                // index into fragments of each claim's origin fragment
	maxClaims     int                  // claims taken at most
	droppedClaims int                  // claims whose quote is not inside one fragment
	rejected      int                  // claims whose quote does not occur in the text
	fromStore     bool                 // the text is a stored version (a known DOI), not a fetch
	paper         *academic.Paper      // academic metadata of a resolved DOI
	linked        []extract.Identifier // ids of other works the page links to or mentions
	extractor     string               // model id of the claim extractor
}

// processPage extracts text, fragments, identifiers and claims. No I/O.
func processPage(res *crawl.Result, cfg ExtractConfig) (processedPage, error) {
	var p processedPage
	var err error
	switch res.ContentType {
	case "text/plain":
		p.doc = extract.FromPlainText(res.Body)
	default:
		pageURL, _ := url.Parse(res.FinalURL)
		p.doc, err = extract.FromHTMLWithLimits(res.Body, res.ContentType, pageURL, extract.Limits{MaxElements: cfg.MaxElements})
		if errors.Is(err, extract.ErrTooManyElements) {
			return p, err // the failure reason: too_many_elements and the page's figures
		}
		if err != nil {
			return p, fmt.Errorf("extract main text: %w", err)
		}
	}
	if strings.TrimSpace(p.doc.Text) == "" {
		return p, fmt.Errorf("extract main text: %w", extract.ErrNoText)
	}
	sum := sha256.Sum256([]byte(p.doc.Text))
	p.sha = hex.EncodeToString(sum[:])
	p.fragments = extract.Fragments(p.doc.Text, cfg.Fragments)
	if cfg.MaxFragments > 0 && len(p.fragments) > cfg.MaxFragments {
		// The version keeps the whole text; only its first fragments are
		// stored, embedded and searched.
		p.fragments = p.fragments[:cfg.MaxFragments]
	}
	// The ids a page declares about itself (its meta tags) are claims, not
	// facts: anyone can declare any DOI. They are recorded, never trusted to
	// say which paper this page is. DOIs merely cited in links or text
	// belong to other works.
	if res.ContentType != "text/plain" {
		p.declared = extract.MetaIdentifiers(res.Body)
		if len(p.declared) > maxOwnIDs {
			p.declared = p.declared[:maxOwnIDs] // the first ones declared
		}
	}
	// The works it links to or mentions (in links and text) are other pages:
	// stubs the page cites, so a later fetch or DOI target finds the paper.
	body := res.Body
	if res.ContentType == "text/plain" {
		body = nil
	}
	for _, id := range extract.Identifiers(body, p.doc.Text) {
		if !slices.Contains(p.declared, id) && len(p.linked) < maxLinkedIDs {
			p.linked = append(p.linked, id)
		}
	}
	p.maxClaims = cfg.MaxClaimsPerPage
	if p.maxClaims == 0 {
		p.maxClaims = 20
	}
	return p, nil
}

// acceptClaims validates proposed claims against the page version: citations
// are validated, never generated. A claim is kept only when its quote occurs
// verbatim in the text (extract.LocateQuote: exact and case-sensitive after
// collapsing whitespace runs and folding typographic quotes) and the quote
// lies inside one fragment; it keeps the exact rune span of that occurrence.
// Claims with an empty text or quote, a text that is no claim (over
// jobs.MaxTextRunes, a control character), or a span already taken, count
// as rejected; at most maxClaims are kept. No I/O.
func (p *processedPage) acceptClaims(proposed []models.LLMClaim) {
	taken := map[[2]int]bool{}
	for _, c := range proposed {
		if len(p.claims) >= p.maxClaims {
			return
		}
		text := strings.Join(strings.Fields(c.Claim), " ")
		if text == "" || jobs.CheckText(text, jobs.MaxTextRunes) != nil {
			p.rejected++ // a model's answer is held to the claim bounds like a user's
			continue
		}
		start, end, ok := extract.LocateQuote(p.doc.Text, c.Quote)
		if !ok || taken[[2]int{start, end}] {
			p.rejected++
			continue
		}
		fi := containingFragment(p.fragments, start, end)
		if fi < 0 {
			p.droppedClaims++
			continue
		}
		taken[[2]int{start, end}] = true
		conf := c.Confidence
		if math.IsNaN(conf) {
			conf = 0
		}
		p.claims = append(p.claims, extract.ExtractedClaim{Text: text, QuoteStart: start, QuoteEnd: end,
			Confidence: min(max(conf, 0), 1)})
		p.claimFragment = append(p.claimFragment, fi)
	}
}

// containingFragment returns the index of the fragment that contains the
// whole span, or -1. Fragments are sorted and disjoint.
func containingFragment(frags []extract.Fragment, start, end int) int {
	lo, hi := 0, len(frags)
	for lo < hi {
		mid := (lo + hi) / 2
		if frags[mid].End <= start {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(frags) && frags[lo].Start <= start && end <= frags[lo].End {
		return lo
	}
	return -1
}

// pageWrite is the store's view of a processed page.
// What a page's metadata keeps of what a page or an academic API says:
// text the outside controls, so bounded (cut with textclip's ellipsis).
const (
	maxTitleRunes       = 1000
	maxContentTypeBytes = 255
	maxAuthors          = 100
	maxAuthorRunes      = 300
)

func pageWrite(res *crawl.Result, p processedPage, embedModel string) store.PageWrite {
	pw := store.PageWrite{URL: res.URL, FinalURL: res.FinalURL, Title: textclip.Runes(p.doc.Title, maxTitleRunes), Fetched: !p.fromStore,
		Status: res.Status, ContentType: textclip.Bytes(res.ContentType, maxContentTypeBytes), FetchedAt: res.FetchedAt,
		SHA256: p.sha, Content: p.doc.Text, Identifiers: storeIDs(p.identifiers), Declared: storeIDs(p.declared), Linked: storeIDs(p.linked),
		EmbedModel: embedModel}
	for _, f := range p.fragments {
		pw.Fragments = append(pw.Fragments, store.FragmentSpan{Start: f.Start, End: f.End, Text: f.Text, Heading: f.Heading})
	}
	if a := p.paper; a != nil {
		authors := make([]string, 0, min(len(a.Authors), maxAuthors))
		for _, name := range a.Authors[:cap(authors)] {
			authors = append(authors, textclip.Runes(name, maxAuthorRunes))
		}
		pw.Paper = &store.PaperMeta{Title: textclip.Runes(a.Title, maxTitleRunes), Venue: textclip.Runes(a.Venue, maxTitleRunes),
			S2ID: a.S2ID, OpenAlexID: a.OpenAlexID, Year: a.Year, Authors: authors}
	}
	return pw
}

func storeIDs(ids []extract.Identifier) []store.Identifier {
	out := make([]store.Identifier, len(ids))
	for i, id := range ids {
		out[i] = store.Identifier{Type: id.Type, Value: id.Value}
	}
	return out
}

// writePage writes a processed page for the job's task in one store call
// (store.WritePage) and reports what it did as the job's output.
func writePage(ctx context.Context, q *store.Queries, args jobs.TargetQueueArgs, targetID int64, res *crawl.Result, p processedPage, embedModel string) (targetOutput, error) {
	task := store.PageForTask{TaskID: args.TaskID, TargetID: targetID, Depth: args.Depth, Extractor: p.extractor}
	for i, c := range p.claims {
		f := p.fragments[p.claimFragment[i]]
		task.Claims = append(task.Claims, store.ClaimWrite{Text: c.Text, QuoteStart: c.QuoteStart, QuoteEnd: c.QuoteEnd,
			Confidence: c.Confidence, Fragment: [2]int{f.Start, f.End}})
	}
	wr, err := q.WritePage(ctx, pageWrite(res, p, embedModel), task)
	if err != nil {
		return targetOutput{}, err
	}
	return targetOutput{PageID: wr.PageID, PageVersionID: wr.VersionID, NewVersion: wr.NewVersion,
		Fragments: wr.Fragments, ClaimsNew: wr.ClaimsNew, ClaimsExisting: wr.ClaimsExisting,
		ClaimsDropped: wr.ClaimsDropped + p.droppedClaims, QuotesRejected: p.rejected,
		Identifiers: wr.Identifiers, ToEmbed: wr.ToEmbed, NewToTask: wr.NewToTask,
		Academic: p.paper != nil || slices.ContainsFunc(slices.Concat(p.identifiers, p.declared), func(id extract.Identifier) bool { return id.Type == extract.IDDOI }),
	}, nil
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
		// Every academic page's citation graph, whatever found the page (unique per page).
		params = append(params, river.InsertManyParams{Args: jobs.CitationGraphArgs{TaskID: taskID, PageID: pageID}})
	}
	if _, err := client.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("enqueue follow-ups: %w", err)
	}
	return nil
}

// failTarget records a permanent failure on the target (and the page, when it
// was fetched) and cancels the job with the reason. The task goes on.
func (w *TargetQueueWorker) failTarget(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], targetID int64, res *crawl.Result, cause error) error {
	msg := cause.Error()
	failure := store.TargetFailure{TaskID: job.Args.TaskID, TargetID: targetID, Reason: msg,
		Event: mustJSON(map[string]any{"target": job.Args.Target, "error": msg, "job_id": job.ID})}
	if res != nil {
		failure.Fetch = &store.FailedFetch{URL: res.URL, FinalURL: res.FinalURL, ContentType: res.ContentType,
			Status: res.Status, FetchedAt: res.FetchedAt}
	}
	err := w.Store.InTx(ctx, func(_ pgx.Tx, q *store.Queries) error { return q.FailTarget(ctx, failure) })
	if err != nil {
		return fmt.Errorf("record target failure (%s): %w", msg, err)
	}
	logger(w.Logger).WarnContext(ctx, "target failed", slog.Int64("job_id", job.ID), slog.String("error", msg))
	return river.JobCancel(cause)
}

// completeAlone completes a job that has nothing to write.
func completeAlone[T river.JobArgs](ctx context.Context, s *store.Store, job *river.Job[T]) error {
	return s.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error { return completeTx(ctx, tx, job, nil) })
}

// queryOutput is recorded as a query target's job output.
type queryOutput struct {
	Results    int `json:"results"`     // result URLs the search returned
	Registered int `json:"registered"`  // url targets registered with a new job
	Known      int `json:"known"`       // result URLs the task had already (their job exists)
	Invalid    int `json:"invalid_url"` // result URLs refused by URL normalisation
	Papers     int `json:"papers"`      // DOIs from the academic search (an academic query)
}

// workQuery asks the search backend and registers its result URLs as url
// targets of the task, one level deeper, each with its target_queue job.
// Targets are unique per task and their jobs unique per task and target, so
// a URL two queries return is fetched once.
func (w *TargetQueueWorker) workQuery(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], targetID int64, target jobs.Target) error {
	scholarly := w.Scholar != nil && papers.LooksAcademic(target.Value)
	if w.Search == nil && !scholarly {
		w.Metrics.Search("not_configured")
		return w.failTarget(ctx, job, targetID, nil, search.ErrNotConfigured)
	}
	limit := w.SearchResults
	if limit <= 0 {
		limit = 10
	}
	var out queryOutput
	var targets []jobs.Target
	seen := map[string]bool{}
	add := func(t jobs.Target) {
		if !seen[t.Kind+" "+t.Value] {
			seen[t.Kind+" "+t.Value] = true
			targets = append(targets, t)
		}
	}
	var webErr error
	if w.Search != nil {
		results, err := w.Search.Search(ctx, target.Value, limit)
		if err != nil {
			w.Metrics.Search("error")
			webErr = err
		} else {
			w.Metrics.Search("ok")
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
		dois, err := w.Scholar.SearchDOIs(ctx, target.Value, limit)
		if err != nil {
			w.Metrics.Academic("search", "unavailable")
			logger(w.Logger).WarnContext(ctx, "academic search skipped", slog.Int64("job_id", job.ID), slog.String("error", err.Error()))
		} else {
			w.Metrics.Academic("search", "ok")
			out.Papers = len(dois)
			for _, doi := range dois {
				add(jobs.Target{Kind: jobs.TargetDOI, Value: doi})
			}
		}
	}
	if webErr != nil && len(targets) == 0 {
		var se *search.StatusError
		if errors.As(webErr, &se) && se.Temporary() {
			if asked, err2 := time.ParseDuration(se.RetryAfter + "s"); err2 == nil && asked > 0 {
				if wait, ok := w.Waits.snooze(job.JobRow, asked); ok {
					return river.JobSnooze(wait)
				}
			}
			return fmt.Errorf("search %q: %w", target.Value, webErr)
		}
		if ctx.Err() == nil && !errors.As(webErr, &se) {
			return fmt.Errorf("search %q: %w", target.Value, webErr) // network: retry (settle fails it on the last attempt)
		}
		return w.failTarget(ctx, job, targetID, nil, fmt.Errorf("search %q: %w", target.Value, webErr))
	}
	err := w.Store.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		if _, err := q.LockActiveTask(ctx, job.Args.TaskID); err != nil {
			return err
		}
		if len(targets) > 0 {
			res, err := intake.AddTargetsAt(ctx, river.ClientFromContext[pgx.Tx](ctx), tx, job.Args.TaskID, job.Args.Depth+1, targets)
			if err != nil {
				return err
			}
			for _, r := range res {
				if r.UniqueSkippedAsDuplicate {
					out.Known++
				} else {
					out.Registered++
				}
			}
		}
		if err := q.FinishTarget(ctx, store.FinishTargetParams{ID: targetID, Status: "extracted", Stage: "searched"}); err != nil {
			return fmt.Errorf("mark query target searched: %w", err)
		}
		if err := q.InsertEvent(ctx, store.InsertEventParams{TaskID: &job.Args.TaskID, EventType: "query_searched",
			Payload: mustJSON(map[string]any{"query": target.Value, "results": out.Results, "registered": out.Registered, "known": out.Known})}); err != nil {
			return fmt.Errorf("record search event: %w", err)
		}
		return completeTx(ctx, tx, job, out)
	})
	if err != nil {
		return fmt.Errorf("register results of %q: %w", target.Value, err)
	}
	logger(w.Logger).InfoContext(ctx, "query searched", slog.Int64("job_id", job.ID), slog.String("query", target.Value),
		slog.Int("results", out.Results), slog.Int("registered", out.Registered), slog.Int("known", out.Known))
	return nil
}

// resolveDOI asks the academic APIs for a DOI unknown to the graph. When it
// returns no paper, the job is finished with the returned error: the target
// failed (not found, no API configured or reachable — the fleet goes on) or
// the job was cancelled.
func (w *TargetQueueWorker) resolveDOI(ctx context.Context, job *river.Job[jobs.TargetQueueArgs], targetID int64, doi string) (*academic.Paper, error) {
	log := logger(w.Logger).With(slog.Int64("job_id", job.ID), slog.String("doi", doi))
	if w.Papers == nil {
		w.Metrics.Academic("doi", "skipped")
		log.WarnContext(ctx, "DOI target skipped: not a known page and no academic API is configured")
		return nil, w.failTarget(ctx, job, targetID, nil, fmt.Errorf("DOI %s is not a known page and no academic API is configured to resolve it (EVF_S2_URL, EVF_OPENALEX_URL)", doi))
	}
	paper, err := w.Papers.ResolveDOI(ctx, doi)
	switch {
	case err == nil:
		w.Metrics.Academic("doi", "ok")
		return paper, nil
	case errors.Is(err, remoteerr.ErrNotFound):
		w.Metrics.Academic("doi", "not_found")
		return nil, w.failTarget(ctx, job, targetID, nil, fmt.Errorf("DOI %s: not found in the academic APIs", doi))
	default:
		w.Metrics.Academic("doi", "unavailable")
		log.WarnContext(ctx, "DOI target skipped: academic APIs unreachable", slog.String("error", err.Error()))
		return nil, w.failTarget(ctx, job, targetID, nil, fmt.Errorf("DOI %s: academic APIs unreachable after retries: %w", doi, err))
	}
}

// paperResult is the starting point of a resolved DOI: an abstract-only page
// at https://doi.org/<doi>, its text the title and the abstract (the title
// alone for a paper without an abstract — a placeholder the citation graph
// and verification can still point at). Everything after is the url path.
func paperResult(p *academic.Paper) *crawl.Result {
	text := strings.TrimSpace(p.Title)
	if a := strings.TrimSpace(p.Abstract); a != "" {
		text += "\n\n" + a
	}
	u := "https://doi.org/" + p.DOI
	return &crawl.Result{URL: u, FinalURL: u, Status: 200, ContentType: "text/plain", Body: []byte(text), FetchedAt: time.Now().UTC()}
}

// paperIdentifiers are the ids a resolved paper is indexed under.
func paperIdentifiers(p *academic.Paper) []extract.Identifier {
	var out []extract.Identifier
	for _, id := range []extract.Identifier{{Type: extract.IDDOI, Value: p.DOI}, {Type: extract.IDPMID, Value: p.PMID},
		{Type: extract.IDArXiv, Value: p.ArXiv}, {Type: "s2", Value: p.S2ID}, {Type: "openalex", Value: p.OpenAlexID}} {
		if id.Value != "" {
			out = append(out, id)
		}
	}
	return out
}

// Bounds on the ids one page brings: each linked id is an advisory lock in
// the page's write (store.StorePage) and a stub page. A paper declares a
// handful about itself (its DOI, PMID, arXiv id).
const (
	maxOwnIDs    = 16  // ids a page declares about itself, the first ones kept
	maxLinkedIDs = 200 // works a page registers as cited
)
