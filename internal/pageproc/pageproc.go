// Package pageproc is target_queue's page stage: from a target's page to
// the value the store writes. Process takes the page through a Fetcher,
// reads its text, fragments and identifiers, asks a ClaimExtractor for
// claims and keeps those whose quote is verbatim in one fragment, and
// returns a PageResult: the page bounded for the store, its claims with
// their spans, what it leads to, and a Status with the reason when it went
// no further. It does I/O only through the interfaces it is given and
// imports neither the store nor River (package jobs only for the contract's
// claim bounds); the worker stores the result with one call
// (store.WritePage).
package pageproc

import (
	"context"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/verification"
	"github.com/evidencefleet/evidencefleet/internal/warc"
)

// Config tunes page processing.
type Config struct {
	Fragments        extract.FragmentOptions
	MaxClaimsPerPage int // claims kept per page version (default 20)
	MaxElements      int // an HTML page with more start tags, or whose tree would have more than extract.NodesPerElement times as many nodes, fails unparsed (0: no cap)
	MaxFragments     int // fragments kept per page version, the first ones (0: no cap)
}

// Fetcher gives the page of a URL: *crawl.Fetcher for a url target, or a
// page already in hand (StoredDOI, FromPaper).
type Fetcher interface {
	Fetch(ctx context.Context, url string) (*crawl.Result, error)
}

// ClaimExtractor proposes a page's claims with their quotes (models.LLM).
type ClaimExtractor interface {
	ExtractClaims(ctx context.Context, req models.ClaimRequest) ([]models.LLMClaim, error)
	Model() string // the id recorded with the claims
}

// Input is where a target's page comes from, and what is known of it
// before it is read.
type Input struct {
	Fetcher Fetcher
	URL     string // what Fetcher fetches
	// FromStore: the page is a stored version (of a known DOI), not a
	// fetch, so no fetch is recorded for it.
	FromStore bool
	Paper     *academic.Paper      // academic metadata of a resolved DOI
	IDs       []extract.Identifier // verified ids: the DOI it was found by, a resolved paper's ids
	// Memory admits the page's work by what it may hold (Estimate),
	// once the page is in hand and before it is parsed; the caller gives
	// it back when done with the page. nil: no admission.
	Memory Admitter
}

// Admitter admits a page's work by the bytes it may hold
// (*membudget.Hold): Admit waits for them and fails when ctx ends first,
// or when the page may never have them.
type Admitter interface {
	Admit(ctx context.Context, bytes int64) error
}

// URL is the input of a url target: the page f fetches.
func URL(f Fetcher, url string) Input { return Input{Fetcher: f, URL: url} }

// StoredDOI is the input of a doi target whose paper is already a page: its
// latest version, read back from the store, as a fetch of its own URL
// would give it.
func StoredDOI(doi, url, content string, fetchedAt time.Time) Input {
	res := &crawl.Result{URL: url, FinalURL: url, Status: 200, ContentType: "text/plain",
		Body: []byte(content), FetchedAt: fetchedAt}
	return Input{Fetcher: inHand{res}, URL: url, FromStore: true,
		IDs: []extract.Identifier{{Type: extract.IDDOI, Value: doi}}}
}

// FromPaper is the input of a paper the academic APIs resolved: its
// abstract page (paperPage), indexed under the paper's ids.
func FromPaper(p *academic.Paper) Input {
	res := paperPage(p)
	return Input{Fetcher: inHand{res}, URL: res.URL, Paper: p, IDs: paperIdentifiers(p)}
}

// inHand is the Fetcher of a page already in hand.
type inHand struct{ res *crawl.Result }

func (h inHand) Fetch(context.Context, string) (*crawl.Result, error) { return h.res, nil }

// Status is how far a page got.
type Status int

const (
	// StatusOK: the page was read (and its claims extracted, by Process).
	StatusOK Status = iota
	// StatusFetchFailed: the Fetcher failed; Err is its error.
	StatusFetchFailed
	// StatusUnreadable: the page has no text to keep (none, or too many
	// elements to parse); Err is the reason, and Fetch the page.
	StatusUnreadable
	// StatusClaimsFailed: the ClaimExtractor failed; Err is its error.
	StatusClaimsFailed
	// StatusNotAdmitted: the page was not admitted to be parsed: ctx
	// ended while it waited for memory (Err is ctx's error), or it would
	// hold more than a page may (Err wraps membudget.ErrPageTooLarge).
	StatusNotAdmitted
)

func (s Status) String() string {
	switch s {
	case StatusOK:
		return "ok"
	case StatusFetchFailed:
		return "fetch_failed"
	case StatusUnreadable:
		return "unreadable"
	case StatusClaimsFailed:
		return "claims_failed"
	case StatusNotAdmitted:
		return "not_admitted"
	}
	return "unknown"
}

// PageResult is what the stage made of one page. It keeps what it has when
// it stops: Fetch is set from the moment the page is fetched.
type PageResult struct {
	Status    Status
	Err       error         // the reason when Status is not StatusOK
	Fetch     *crawl.Result // the page as fetched; nil when the fetch failed
	FetchTime time.Duration // the Fetcher's time
	Page      Page
	Claims    []Claim
	Extractor string // model id of the claim extractor
	// ClaimsDropped counts claims whose quote is in the text but not inside
	// one fragment; QuotesRejected those whose quote is not in the text (or
	// is empty or taken), or whose text is no claim.
	ClaimsDropped, QuotesRejected int
	FollowUps                     FollowUps
	// Quarantine names the dangerous pattern the page's title or text
	// holds (verification.DangerousPattern): its text never reaches the
	// claim extractor.
	Quarantine string
}

// Page is a page version as the store keeps it: outside text (title,
// content type, an API's paper metadata) bounded.
type Page struct {
	URL, FinalURL string
	Title         string
	Fetched       bool // false for a stored version read back
	Status        int
	ContentType   string
	FetchedAt     time.Time
	SHA256        string // of Content
	Content       string // the version's canonical text
	Fragments     []extract.Fragment
	Identifiers   []extract.Identifier // verified ids: from an academic API, or the id the page was found by
	Declared      []extract.Identifier // ids the page states about itself (meta tags): unverified claims
	Paper         *PaperMeta           // academic metadata of a resolved DOI
	// Capture is the HTTP response the page was fetched in (its Status is
	// 0 for a page that was not fetched: a stored version, an API's
	// abstract).
	Capture warc.Capture
}

// PaperMeta is what the academic APIs say of a paper, bounded.
type PaperMeta struct {
	Title, Venue, S2ID, OpenAlexID string
	Year                           int
	Authors                        []string
}

// Claim is an accepted claim: its text, the exact rune span of its quote in
// Page.Content and the model's confidence in [0,1].
type Claim struct {
	extract.ExtractedClaim
	Fragment int // index in Page.Fragments of the fragment holding the quote
}

// FollowUps is what the page leads to beyond itself.
type FollowUps struct {
	// Cites are the works the page links to or mentions: stub pages it
	// cites, so a later fetch or DOI target finds the paper.
	Cites []extract.Identifier
	// CitationGraph: an academic page (a resolved paper, or a page with a
	// DOI), whose citation graph is queued.
	CitationGraph bool
}

// Process is Read, then the claims ex proposes for the page, kept only when
// their quote is verbatim in one fragment (acceptClaims).
func Process(ctx context.Context, in Input, cfg Config, ex ClaimExtractor) PageResult {
	r := Read(ctx, in, cfg)
	if r.Status != StatusOK {
		return r
	}
	if pattern, found := verification.DangerousPattern(r.Page.Title + "\n" + r.Page.Content); found {
		r.Quarantine = pattern
		return r
	}
	maxClaims := cfg.MaxClaimsPerPage
	if maxClaims == 0 {
		maxClaims = 20
	}
	// The title as the page keeps it, bounded: it goes with every piece of
	// the text a model is asked about.
	proposed, err := ex.ExtractClaims(ctx, models.ClaimRequest{
		URL: r.Fetch.FinalURL, Title: r.Page.Title, Text: r.Page.Content, MaxClaims: maxClaims})
	if err != nil {
		r.Status, r.Err = StatusClaimsFailed, err
		return r
	}
	r.Claims, r.QuotesRejected, r.ClaimsDropped = acceptClaims(r.Page.Content, r.Page.Fragments, maxClaims, proposed)
	r.Extractor = ex.Model()
	return r
}
