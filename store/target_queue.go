package store

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/ident"
)

// EnsureTargetParams names a target of a task by its natural key.
type EnsureTargetParams = InsertOrSelectTargetParams

// EnsureTargetRow is a registered target: its id and status.
type EnsureTargetRow = InsertOrSelectTargetRow

// EnsureTarget returns the task's target, inserting it on first sight. Two
// transactions registering one target at once both get its row: the
// second's insert waits for the first and inserts nothing, and when the
// first committed, the row its statement's snapshot cannot show is read
// by the next statement (RetryOnRace). It takes no lock beyond the
// insert's.
func (q *Queries) EnsureTarget(ctx context.Context, arg EnsureTargetParams) (EnsureTargetRow, error) {
	return RetryOnRace(ctx, func() (EnsureTargetRow, error) {
		return q.InsertOrSelectTarget(ctx, arg)
	})
}

// DomainLevel is a domain's trust level with who or what set it and by
// which rule.
type DomainLevel struct {
	Level  string // a domainpolicy level
	Source string // "policy", …
	Rule   string // the rule that decided, for the record
}

// Params are EnsureDomain's parameters for domain at this level; a zero
// level is UNVERIFIED, set by nobody.
func (l DomainLevel) Params(domain string) EnsureDomainParams {
	site := ident.Site(domain)
	if l.Level == "" {
		return EnsureDomainParams{Domain: domain, Site: &site, TrustLevel: "UNVERIFIED", LevelSource: "default"}
	}
	return EnsureDomainParams{Domain: domain, Site: &site, TrustLevel: l.Level, LevelSource: l.Source, LevelRule: nonEmpty(l.Rule)}
}

// PageWrite is a processed page version as target_queue and citation_graph
// hand it to the store: plain values, no parser or crawler types.
type PageWrite struct {
	URL      string // normalised; the page's natural key
	FinalURL string
	Title    string
	// Fetched is true for a fetch (its status, content type and time are
	// recorded on the page), false for a version read back from the store.
	Fetched     bool
	Status      int
	ContentType string
	FetchedAt   time.Time

	SHA256    string // of Content
	Content   string // the version's canonical text
	Fragments []FragmentSpan
	// Identifiers are the page's verified ids — from an academic API, or
	// the id it was found by — under which it is indexed and found.
	// Declared are ids the page states about itself (its meta tags), which
	// anyone can state: they are recorded on the page (its doi, pmid and
	// arxiv_id when no verified one is known) and never indexed, looked up
	// or merged on, so a page declaring another paper's DOI never becomes
	// that paper. Linked are ids of other works it links to or mentions
	// (stub pages it cites).
	Identifiers []Identifier
	Declared    []Identifier
	Linked      []Identifier
	Paper       *PaperMeta // academic metadata of an abstract-only page
	// DomainLevel is the level the page's domain gets if this write is the
	// first sight of it (the domain policy's); a known domain keeps its
	// level of record. Zero means UNVERIFIED, set by nobody.
	DomainLevel DomainLevel
	// Quarantine names the dangerous pattern the page's text holds
	// (verification.DangerousPattern): the page is marked, and its domain
	// blocked, or flagged when vouched for, in the view of MetBy, the
	// organization whose task met it (WritePage fills it in from the task).
	Quarantine string
	MetBy      string

	EmbedModel string // fragments lacking an embedding of this model are returned to embed

	// Capture is the HTTP response a fetched page came in, kept with its
	// version when the version is new (page_captures); nil for none.
	Capture *CaptureWrite
	// Robots are the robots.txt responses its fetch read from the web
	// (robots_captures).
	Robots []CaptureWrite
}

// CaptureWrite is an HTTP response as page_captures keeps it.
type CaptureWrite struct {
	URL        string
	CapturedAt time.Time
	Status     int
	Header     string // "Name: value" lines (warc.FormatHeader)
	Body       []byte
	Request    string // the request's headers, as Header ("": not recorded)
}

// FragmentSpan is one fragment: [Start, End) in characters of the content.
type FragmentSpan struct {
	Start, End    int
	Text, Heading string
}

// Identifier is an academic id in its normal form (internal/ident).
type Identifier struct{ Type, Value string }

// PaperMeta is what the academic APIs say of a paper.
type PaperMeta struct {
	Title, Venue, S2ID, OpenAlexID string
	Year                           int
	Authors                        []string
}

// ClaimWrite is one extracted claim, with the fragment holding its quote.
type ClaimWrite struct {
	Text                 string
	QuoteStart, QuoteEnd int
	Confidence           float64
	Fragment             [2]int // (Start, End) of its origin fragment
}

// PageStored is what StorePage wrote.
type PageStored struct {
	PageID, VersionID int64
	NewVersion        bool
	FragmentIDs       map[[2]int32]int64 // (start, end) → fragment id
	ToEmbed           []int64            // fragments without an embedding for EmbedModel
	Fragments         int
	Identifiers       int
}

// StorePage stores a page's shared part — the page (one per paper:
// resolvePage), its fetch record, version, fragments, academic metadata,
// identifiers and the stub pages it cites — idempotently, without touching
// any task. Lock order: the advisory locks of the page's URL and of all its
// identifiers and linked ids, taken at once in sorted order, before any row.
func (q *Queries) StorePage(ctx context.Context, p PageWrite) (PageStored, error) {
	var out PageStored
	domain := ident.Domain(p.URL)
	pageID, err := q.resolvePage(ctx, p, domain)
	if err != nil {
		return out, err
	}
	out.PageID = pageID
	if p.Fetched {
		status := int32(p.Status)
		if err := q.RecordPageFetch(ctx, RecordPageFetchParams{
			ID: pageID, FinalUrl: &p.FinalURL, Title: nonEmpty(strings.TrimSpace(p.Title)), FetchedAt: &p.FetchedAt,
			HttpStatus: &status, ContentType: &p.ContentType,
		}); err != nil {
			return out, fmt.Errorf("record fetch: %w", err)
		}
	}
	if err := q.EnsureDomain(ctx, p.DomainLevel.Params(domain)); err != nil {
		return out, fmt.Errorf("ensure domain: %w", err)
	}
	ver, err := q.storeVersion(ctx, pageID, p.SHA256, p.Content, p.FetchedAt, p.Capture, p.Robots)
	if err != nil {
		return out, err
	}
	out.VersionID, out.NewVersion = ver.ID, ver.Created

	n := len(p.Fragments)
	fp := InsertFragmentsParams{PageID: pageID, PageVersionID: ver.ID,
		Starts: make([]int32, n), Ends: make([]int32, n), Texts: make([]string, n), Headings: make([]string, n)}
	for i, f := range p.Fragments {
		fp.Starts[i], fp.Ends[i], fp.Texts[i], fp.Headings[i] = int32(f.Start), int32(f.End), f.Text, f.Heading
	}
	if err := q.InsertFragments(ctx, fp); err != nil {
		return out, fmt.Errorf("insert fragments: %w", err)
	}
	rows, err := q.VersionFragments(ctx, VersionFragmentsParams{PageVersionID: ver.ID, EmbedModel: p.EmbedModel})
	if err != nil {
		return out, fmt.Errorf("read fragments: %w", err)
	}
	out.FragmentIDs = make(map[[2]int32]int64, len(rows))
	for _, r := range rows {
		out.FragmentIDs[[2]int32{r.StartChar, r.EndChar}] = r.ID
		if r.NeedsEmbedding {
			out.ToEmbed = append(out.ToEmbed, r.ID)
		}
	}
	out.Fragments = len(rows)

	if a := p.Paper; a != nil {
		var year *int32
		if a.Year > 0 {
			y := int32(a.Year)
			year = &y
		}
		authors := a.Authors
		if authors == nil {
			authors = []string{}
		}
		if err := q.SetPageAcademic(ctx, SetPageAcademicParams{ID: pageID, Title: nonEmpty(a.Title), Year: year,
			Venue: nonEmpty(a.Venue), S2PaperID: nonEmpty(a.S2ID), OpenalexID: nonEmpty(a.OpenAlexID), Authors: authors, AbstractOnly: true}); err != nil {
			return out, fmt.Errorf("set academic metadata: %w", err)
		}
	}
	// The URL and the page's verified identifiers point at this page from now on.
	if err := q.IndexResources(ctx, IndexResourcesParams{PageID: pageID,
		Types: []string{"url"}, Identifiers: []string{p.URL}}); err != nil {
		return out, fmt.Errorf("index url: %w", err)
	}
	if len(p.Identifiers) > 0 {
		ip := IndexResourcesParams{PageID: pageID}
		for _, id := range p.Identifiers {
			ip.Types = append(ip.Types, id.Type)
			ip.Identifiers = append(ip.Identifiers, id.Value)
		}
		if err := q.IndexResources(ctx, ip); err != nil {
			return out, fmt.Errorf("index identifiers: %w", err)
		}
		doi, pmid, arxiv := firstOfEachType(p.Identifiers)
		if err := q.SetPageIdentifiers(ctx, SetPageIdentifiersParams{ID: pageID, Doi: doi, Pmid: pmid, ArxivID: arxiv}); err != nil {
			return out, fmt.Errorf("set page identifiers: %w", err)
		}
	}
	if len(p.Declared) > 0 {
		doi, pmid, arxiv := firstOfEachType(p.Declared)
		if err := q.SetPageDeclaredIdentifiers(ctx, SetPageDeclaredIdentifiersParams{ID: pageID, Doi: doi, Pmid: pmid, ArxivID: arxiv}); err != nil {
			return out, fmt.Errorf("record declared identifiers: %w", err)
		}
	}
	out.Identifiers = len(p.Identifiers) + len(p.Declared)

	for _, id := range p.Linked {
		stub, err := q.stubPage(ctx, id)
		if err != nil {
			return out, err
		}
		if stub == pageID {
			continue
		}
		link := "link"
		if _, err := q.InsertCitesEdge(ctx, InsertCitesEdgeParams{CitingPageID: pageID, CitedPageID: stub, CitationSource: &link}); err != nil {
			return out, fmt.Errorf("insert cites edge to %s %s: %w", id.Type, id.Value, err)
		}
	}
	if p.Quarantine != "" {
		// last: the domain's row is locked after every other row of the write
		if err := q.quarantine(ctx, pageID, domain, p.Quarantine, p.MetBy); err != nil {
			return out, err
		}
	}
	return out, nil
}

// storeVersion stores a fetch's text as the page's version — the existing
// one when the text is the same — with the capture it came in when the
// version is new, and the robots.txt responses the fetch read.
func (q *Queries) storeVersion(ctx context.Context, pageID int64, sha, content string, fetchedAt time.Time,
	capture *CaptureWrite, robots []CaptureWrite) (UpsertPageVersionRow, error) {
	ver, err := RetryOnRace(ctx, func() (UpsertPageVersionRow, error) {
		return q.UpsertPageVersion(ctx, UpsertPageVersionParams{PageID: pageID, Sha256: sha, Content: content, FetchedAt: fetchedAt})
	})
	if err != nil {
		return ver, fmt.Errorf("upsert page version: %w", err)
	}
	if ver.Created {
		if err := q.insertCapture(ctx, ver.ID, capture); err != nil {
			return ver, err
		}
	}
	return ver, q.StoreRobots(ctx, robots)
}

// CaptureOrigin is the origin (scheme://host[:port]) a capture's URL is
// filed under, for page and robots.txt captures alike: the export pairs
// each page with its origin's robots.txt, and the orphan sweep keeps the
// robots.txt captures a page needs. A URL that does not parse is its own.
func CaptureOrigin(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Scheme + "://" + u.Host
	}
	return raw
}

// StoreRobots stores the robots.txt responses a fetch read (each once):
// with the page or recheck whose fetch read them, or alone when the job
// ends without that write.
func (q *Queries) StoreRobots(ctx context.Context, rs []CaptureWrite) error {
	if len(rs) == 0 {
		return nil
	}
	var p InsertRobotsCapturesParams
	for _, r := range rs {
		p.Origins, p.Urls, p.CapturedAts = append(p.Origins, CaptureOrigin(r.URL)), append(p.Urls, r.URL), append(p.CapturedAts, r.CapturedAt)
		p.Statuses, p.Headers, p.Bodies = append(p.Statuses, int32(r.Status)), append(p.Headers, r.Header), append(p.Bodies, r.Body)
		p.RequestHeaders = append(p.RequestHeaders, r.Request)
	}
	if err := q.InsertRobotsCaptures(ctx, p); err != nil {
		return fmt.Errorf("insert robots.txt captures: %w", err)
	}
	return nil
}

// insertCapture stores the capture of a new version (none when c is nil).
func (q *Queries) insertCapture(ctx context.Context, versionID int64, c *CaptureWrite) error {
	if c == nil {
		return nil
	}
	if err := q.InsertPageCapture(ctx, InsertPageCaptureParams{PageVersionID: versionID, Url: c.URL, Origin: CaptureOrigin(c.URL), CapturedAt: c.CapturedAt,
		Status: int32(c.Status), Headers: c.Header, Body: c.Body, RequestHeaders: nonEmpty(c.Request)}); err != nil {
		return fmt.Errorf("insert the capture of page version %d: %w", versionID, err)
	}
	return nil
}

// PageForTask says which task a page is written for, from which target, and
// the claims extracted from it. The target's kind and how it was
// registered (TargetKind, Via: its row's) give the page's retrieval
// context in the task (TargetContext); zero values mean a url target a
// person added.
type PageForTask struct {
	TaskID, TargetID int64
	TargetKind, Via  string
	Depth            int
	Claims           []ClaimWrite
	Extractor        string // model id of the claim extractor
}

// PageWritten is what WritePage did.
type PageWritten struct {
	PageStored
	ClaimsNew, ClaimsExisting int
	ClaimsDropped             int // origin fragment not among the stored ones
	NewToTask                 bool
}

// WritePage is target_queue's one write: the page's shared part
// (StorePage), then, under the task's row lock (an active task), the claims
// numbered with gapless E-numbers and their origin edges, the page's link to
// the task with how it entered (the target, its retrieval context and
// depth), the task's work_version, and the target marked extracted. Every
// write is idempotent on its natural key, so a retry finds what it stored.
// Lock order: page keys (advisory), then the task row.
func (q *Queries) WritePage(ctx context.Context, p PageWrite, t PageForTask) (PageWritten, error) {
	var out PageWritten
	if p.Quarantine != "" && p.MetBy == "" {
		org, err := q.TaskOrganization(ctx, t.TaskID)
		if err != nil {
			return out, fmt.Errorf("the organization of task %d: %w", t.TaskID, err)
		}
		p.MetBy = org
	}
	st, err := q.StorePage(ctx, p)
	if err != nil {
		return out, err
	}
	out.PageStored = st
	task, err := q.LockActiveTask(ctx, t.TaskID)
	if err != nil {
		return out, err
	}
	existing, err := q.ExistingExtractedClaims(ctx, ExistingExtractedClaimsParams{TaskID: t.TaskID, PageVersionID: &st.VersionID})
	if err != nil {
		return out, fmt.Errorf("read existing claims: %w", err)
	}
	have := make(map[[2]int32]bool, len(existing))
	for _, c := range existing {
		have[[2]int32{*c.QuoteStart, *c.QuoteEnd}] = true
	}
	next := task.NextEvidenceNo
	cp := InsertExtractedClaimsParams{TaskID: t.TaskID, PageVersionID: &st.VersionID, ExtractorModel: t.Extractor}
	for _, c := range t.Claims {
		span := [2]int32{int32(c.QuoteStart), int32(c.QuoteEnd)}
		if have[span] {
			out.ClaimsExisting++
			continue
		}
		id, ok := st.FragmentIDs[[2]int32{int32(c.Fragment[0]), int32(c.Fragment[1])}]
		if !ok {
			out.ClaimsDropped++
			continue
		}
		cp.EvidenceNos = append(cp.EvidenceNos, next)
		next++
		cp.Texts = append(cp.Texts, c.Text)
		cp.TextHashes = append(cp.TextHashes, TextHash(c.Text))
		cp.OriginFragmentIds = append(cp.OriginFragmentIds, id)
		cp.QuoteStarts = append(cp.QuoteStarts, span[0])
		cp.QuoteEnds = append(cp.QuoteEnds, span[1])
		cp.LlmConfidences = append(cp.LlmConfidences, c.Confidence)
	}
	if len(cp.Texts) > 0 {
		inserted, err := q.InsertExtractedClaims(ctx, cp)
		if err != nil {
			return out, fmt.Errorf("insert claims: %w", err)
		}
		out.ClaimsNew = len(inserted)
		ep := InsertOriginEdgesParams{}
		for _, c := range inserted {
			ep.ClaimIds = append(ep.ClaimIds, c.ID)
			ep.FragmentIds = append(ep.FragmentIds, *c.OriginFragmentID)
		}
		if err := q.InsertOriginEdges(ctx, ep); err != nil {
			return out, fmt.Errorf("insert origin edges: %w", err)
		}
	}
	targetID := t.TargetID
	added, err := q.AddTaskPage(ctx, AddTaskPageParams{TaskID: t.TaskID, PageID: st.PageID, PageVersionID: &st.VersionID,
		Reason: TargetContext(t.TargetKind, t.Via), Depth: int32(t.Depth), TargetID: &targetID})
	if err != nil {
		return out, fmt.Errorf("add task page: %w", err)
	}
	out.NewToTask = added
	if err := q.AdvanceTask(ctx, AdvanceTaskParams{ID: t.TaskID, NextEvidenceNo: next}); err != nil {
		return out, fmt.Errorf("advance task: %w", err)
	}
	pageID := st.PageID
	if err := q.FinishTarget(ctx, FinishTargetParams{ID: t.TargetID, Status: "extracted", Stage: "extracted", PageID: &pageID}); err != nil {
		return out, fmt.Errorf("mark target extracted: %w", err)
	}
	return out, nil
}

// QuerySearch is what a query target's search found, as target_queue hands
// it to WriteQuerySearch.
type QuerySearch struct {
	TaskID, TargetID int64
	Query            string
	Results          int // result URLs the search returned
	// Fetch are the results fetched now: the caller inserts their
	// target_queue jobs in the same transaction. Deferred are registered
	// with no job, for the task's retrieval planner to release.
	Fetch, Deferred []TargetRef
}

// TargetRef names a target of a task.
type TargetRef struct{ Kind, Value string }

// QuerySearched is what WriteQuerySearch did: of the results fetched now,
// Registered were new to the task, Known it had already (their jobs exist
// or the task's retrieval planner deferred them).
type QuerySearched struct{ Registered, Known int }

// WriteQuerySearch is a query target's one write: under the task's row lock
// (an active task), its results registered as found by the query (via
// query, ARCHITECTURE.md §3; a result the task already has keeps its first
// origin), the deferred ones with stage 'deferred', the query target marked
// extracted at stage "searched", and a query_searched event of the task
// with the counts. Lock order: the task row before the targets' inserts,
// which take a key-share lock on it.
func (q *Queries) WriteQuerySearch(ctx context.Context, s QuerySearch) (QuerySearched, error) {
	var out QuerySearched
	if _, err := q.LockActiveTask(ctx, s.TaskID); err != nil {
		return out, err
	}
	if len(s.Fetch) > 0 {
		p := EnsureTargetsParams{TaskID: s.TaskID, Via: ViaQuery, SourceTargetID: &s.TargetID}
		for _, t := range s.Fetch {
			p.Kinds, p.Vals = append(p.Kinds, t.Kind), append(p.Vals, t.Value)
		}
		n, err := q.EnsureTargets(ctx, p)
		if err != nil {
			return out, fmt.Errorf("register results: %w", err)
		}
		out.Registered = int(n)
		out.Known = len(s.Fetch) - out.Registered
	}
	if len(s.Deferred) > 0 {
		p := RegisterDeferredTargetsParams{TaskID: s.TaskID, SourceTargetID: s.TargetID}
		for _, t := range s.Deferred {
			p.Kinds, p.Vals = append(p.Kinds, t.Kind), append(p.Vals, t.Value)
		}
		if err := q.RegisterDeferredTargets(ctx, p); err != nil {
			return out, fmt.Errorf("register deferred results: %w", err)
		}
	}
	if err := q.FinishTarget(ctx, FinishTargetParams{ID: s.TargetID, Status: "extracted", Stage: "searched"}); err != nil {
		return out, fmt.Errorf("mark query target searched: %w", err)
	}
	// A map of a string and ints always encodes.
	payload, _ := json.Marshal(map[string]any{"query": s.Query, "results": s.Results, "registered": out.Registered, "known": out.Known,
		"deferred": len(s.Deferred)})
	if err := q.InsertEvent(ctx, InsertEventParams{TaskID: &s.TaskID, EventType: "query_searched", Payload: payload}); err != nil {
		return out, fmt.Errorf("record search event: %w", err)
	}
	return out, nil
}

// resolvePage returns the page a fetched URL belongs to: the page its URL or
// one of its own identifiers (DOI, PMID, arXiv id, in that order) already
// points at in resource_index, or else the page of that URL, created on
// first sight. One paper is one page whatever URL or id found it. Advisory
// locks on the URL, the identifiers and the linked ids, taken at once in one
// sorted order and held to the end of the transaction, keep two workers
// resolving the same paper at once from making two pages.
func (q *Queries) resolvePage(ctx context.Context, p PageWrite, domain string) (int64, error) {
	if err := q.lockResourceKeys(ctx, pageLockKeys(p)); err != nil {
		return 0, err
	}
	for _, k := range lookupKeys(p.URL, p.Identifiers) {
		id, err := q.PageByResource(ctx, k)
		if err == nil {
			return id, nil
		}
		if !IsNotFound(err) {
			return 0, fmt.Errorf("look up %s %s: %w", k.IdentifierType, k.Identifier, err)
		}
	}
	id, err := RetryOnRace(ctx, func() (int64, error) {
		return q.UpsertPage(ctx, UpsertPageParams{Url: p.URL, Domain: domain})
	})
	if err != nil {
		return 0, fmt.Errorf("upsert page: %w", err)
	}
	return id, nil
}

// lookupKeys are the resource_index keys a page is found under, in the
// order they are tried: its URL, then its DOI, PMID and arXiv ids.
func lookupKeys(pageURL string, ids []Identifier) []PageByResourceParams {
	keys := []PageByResourceParams{{IdentifierType: "url", Identifier: pageURL}}
	for _, typ := range []string{ident.DOI, ident.PMID, ident.ArXiv} {
		for _, id := range ids {
			if id.Type == typ {
				keys = append(keys, PageByResourceParams{IdentifierType: id.Type, Identifier: id.Value})
			}
		}
	}
	return keys
}

// pageLockKeys are the advisory lock keys of writing pages: each page's
// lookup keys and the ids it links to.
func pageLockKeys(pages ...PageWrite) []string {
	var out []string
	for _, p := range pages {
		for _, k := range lookupKeys(p.URL, p.Identifiers) {
			out = append(out, k.IdentifierType+":"+k.Identifier)
		}
		for _, id := range p.Linked {
			out = append(out, id.Type+":"+id.Value)
		}
	}
	return out
}

// MaxLockKeys bounds the advisory locks one write takes: each is a slot of
// Postgres's shared lock table, which a page declaring thousands of ids
// would exhaust for every connection ("out of shared memory").
const MaxLockKeys = 2048

// lockResourceKeys takes the transaction's advisory locks of keys all at
// once, sorted and without repeats: every writer takes its page keys in
// this one order, before any row lock, so none waits on another in a
// cycle. Taking a key again later in the transaction does not wait.
func (q *Queries) lockResourceKeys(ctx context.Context, keys []string) error {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	if len(keys) > MaxLockKeys {
		return fmt.Errorf("%w: %d resource keys to lock in one transaction, more than %d", errs.ErrBadInput, len(keys), MaxLockKeys)
	}
	for _, k := range keys {
		if err := q.LockResourceKey(ctx, k); err != nil {
			return fmt.Errorf("lock %s: %w", k, err)
		}
	}
	return nil
}

// stubPage returns the page of a work known only by an id (a DOI, PMID or
// arXiv id a page links to): the indexed page, or a new, unfetched one at
// the id's canonical URL, indexed under it. Its key is locked by the caller.
func (q *Queries) stubPage(ctx context.Context, id Identifier) (int64, error) {
	if pid, err := q.PageByResource(ctx, PageByResourceParams{IdentifierType: id.Type, Identifier: id.Value}); err == nil {
		return pid, nil
	} else if !IsNotFound(err) {
		return 0, fmt.Errorf("look up %s %s: %w", id.Type, id.Value, err)
	}
	var u string
	var doi, pmid, arxiv *string
	v := id.Value
	switch id.Type {
	case ident.DOI:
		u, doi = "https://doi.org/"+v, &v
	case ident.PMID:
		u, pmid = "https://pubmed.ncbi.nlm.nih.gov/"+v+"/", &v
	case ident.ArXiv:
		u, arxiv = "https://arxiv.org/abs/"+v, &v
	default:
		return 0, fmt.Errorf("no page URL for identifier type %q", id.Type)
	}
	pid, err := RetryOnRace(ctx, func() (int64, error) {
		return q.UpsertPage(ctx, UpsertPageParams{Url: u, Domain: ident.Domain(u)})
	})
	if err != nil {
		return 0, fmt.Errorf("stub page for %s %s: %w", id.Type, id.Value, err)
	}
	if err := q.IndexResources(ctx, IndexResourcesParams{PageID: pid, Types: []string{id.Type, "url"}, Identifiers: []string{id.Value, u}}); err != nil {
		return 0, fmt.Errorf("index %s %s: %w", id.Type, id.Value, err)
	}
	if err := q.SetPageIdentifiers(ctx, SetPageIdentifiersParams{ID: pid, Doi: doi, Pmid: pmid, ArxivID: arxiv}); err != nil {
		return 0, fmt.Errorf("set identifiers of %s %s: %w", id.Type, id.Value, err)
	}
	return pid, nil
}

// KnownDOIVersion is the latest version of the page a DOI already points
// at; ok is false when the DOI is not indexed or its page was never fetched.
func (q *Queries) KnownDOIVersion(ctx context.Context, doi string) (v PageLatestVersionRow, ok bool, err error) {
	pageID, err := q.PageByResource(ctx, PageByResourceParams{IdentifierType: ident.DOI, Identifier: doi})
	if IsNotFound(err) {
		return v, false, nil
	}
	if err != nil {
		return v, false, fmt.Errorf("look up DOI %s: %w", doi, err)
	}
	v, err = q.PageLatestVersion(ctx, pageID)
	if IsNotFound(err) {
		return v, false, nil // known id, never fetched: resolve it
	}
	if err != nil {
		return v, false, fmt.Errorf("read page %d: %w", pageID, err)
	}
	return v, true, nil
}

// firstOfEachType returns the first DOI, PMID and arXiv id of ids.
func firstOfEachType(ids []Identifier) (doi, pmid, arxiv *string) {
	for _, id := range ids {
		v := id.Value
		switch {
		case id.Type == ident.DOI && doi == nil:
			doi = &v
		case id.Type == ident.PMID && pmid == nil:
			pmid = &v
		case id.Type == ident.ArXiv && arxiv == nil:
			arxiv = &v
		}
	}
	return doi, pmid, arxiv
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// FailedFetch is the fetch record of a page that could not be used.
type FailedFetch struct {
	URL, FinalURL, ContentType string
	Status                     int
	FetchedAt                  time.Time
}

// TargetFailure is a permanent failure of one target.
type TargetFailure struct {
	TaskID      int64
	Kind, Value string       // the target (registered if it was not yet)
	Fetch       *FailedFetch // nil when nothing was fetched
	Reason      string
	Event       []byte // the target_failed event's JSON payload
}

// FailTarget records a permanent failure in one transaction: the target
// (registered first if the job failed before registering it), the page's
// fetch record with the error (when it was fetched), the target failed with
// the reason, and a target_failed event of the task.
func (q *Queries) FailTarget(ctx context.Context, f TargetFailure) error {
	target, err := q.EnsureTarget(ctx, EnsureTargetParams{TaskID: f.TaskID, Kind: f.Kind, Value: f.Value})
	if err != nil {
		return fmt.Errorf("register target: %w", err)
	}
	var pageID *int64
	if r := f.Fetch; r != nil {
		id, err := RetryOnRace(ctx, func() (int64, error) {
			return q.UpsertPage(ctx, UpsertPageParams{Url: r.URL, Domain: ident.Domain(r.URL)})
		})
		if err != nil {
			return fmt.Errorf("upsert page: %w", err)
		}
		pageID = &id
		status := int32(r.Status)
		if err := q.RecordPageFetch(ctx, RecordPageFetchParams{ID: id, FinalUrl: &r.FinalURL,
			FetchedAt: &r.FetchedAt, HttpStatus: &status, ContentType: &r.ContentType, Error: &f.Reason}); err != nil {
			return fmt.Errorf("record page error: %w", err)
		}
	}
	if err := q.FinishTarget(ctx, FinishTargetParams{ID: target.ID, Status: "failed", Stage: "failed", PageID: pageID, Error: &f.Reason}); err != nil {
		return fmt.Errorf("mark target failed: %w", err)
	}
	if err := q.InsertEvent(ctx, InsertEventParams{TaskID: &f.TaskID, EventType: "target_failed", Payload: f.Event}); err != nil {
		return fmt.Errorf("record target_failed event: %w", err)
	}
	return nil
}
