// Package academic holds what the scholarly-metadata clients (the Semantic
// Scholar Graph API in academic/s2, OpenAlex in academic/openalex) share: a
// small paper and citation-link model, identifier normalisation (DOI, PMID,
// arXiv), paging bounds, and Client, a JSON-over-HTTP client built on
// internal/httpx (retries with backoff honouring Retry-After, circuit
// breaker, metrics) that adds a minimum spacing between requests (a
// golang.org/x/time/rate limiter), maps 404 to remoteerr.ErrNotFound and
// keeps the API key out of errors.
//
// The errors of the clients are those of internal/remoteerr; test them
// with errors.Is. Failures of the HTTP exchange are *httpx.Error values
// wrapping remoteerr.ErrUnavailable, ErrRejected (4xx other than 404, 408 and
// 429), ErrBadResponse (an answer that is not the documented JSON),
// ErrNotFound (a 404: the API does not know the paper; not retried) or a
// context error.
//
// Every answer is read as a stream within a bound of its request: a page of
// at most the request's limit of papers (ListBound) or one paper looked up
// by id (OneBound); past it the reading stops with ErrBadResponse naming
// the bound.
//
// The identifier and model code is pure; the I/O lives in client.go and
// spacing.go.
package academic

// Sources of papers and links.
const (
	SourceSemanticScholar = "semanticscholar"
	SourceOpenAlex        = "openalex"
)

// Paper is one scholarly work as either API describes it. Fields the API did
// not give are zero.
type Paper struct {
	Title string
	Year  int    // publication year; 0 when unknown
	Venue string // journal or conference name
	// DOI is normalised (NormalizeDOI): lower case, no resolver prefix.
	DOI        string
	PMID       string // PubMed id, digits only
	ArXiv      string // arXiv id, e.g. "2208.04425"
	S2ID       string // Semantic Scholar paper id (40 hex digits)
	CorpusID   int64  // Semantic Scholar corpus id
	OpenAlexID string // short OpenAlex work id, e.g. "W2741809807"
	Abstract   string
	Authors    []string // display names in author order
	// PublicationDate is "YYYY-MM-DD" as the API gave it, or "".
	PublicationDate          string
	URL                      string // the API's landing page for the paper
	CitationCount            int
	ReferenceCount           int
	InfluentialCitationCount int // Semantic Scholar only
	// References are the short OpenAlex ids of the works this one cites
	// (OpenAlex's referenced_works; empty for Semantic Scholar).
	References []string
	Source     string // SourceSemanticScholar or SourceOpenAlex
}

// Link is one edge of the citation graph seen from a paper: for a reference
// list Paper is the cited work, for a citation list the citing one.
type Link struct {
	Paper Paper
	// Influential is Semantic Scholar's isInfluential; always false from
	// OpenAlex, which has no such notion.
	Influential bool
	Contexts    []string // citation contexts (Semantic Scholar "contexts")
	Intents     []string // citation intents (Semantic Scholar "intents")
	Source      string   // SourceSemanticScholar or SourceOpenAlex
}

// Defaults of Limit fields left zero.
const (
	DefaultMaxItems = 1000
	DefaultMaxPages = 100
)

// Limit bounds a paged listing (references, citations, filtered works).
// Zero fields take DefaultMaxItems and DefaultMaxPages, so a listing is never
// unbounded.
type Limit struct {
	MaxItems int // items returned at most
	MaxPages int // requests made at most
}

// Items returns the effective item bound.
func (l Limit) Items() int {
	if l.MaxItems <= 0 {
		return DefaultMaxItems
	}
	return l.MaxItems
}

// Pages returns the effective page bound.
func (l Limit) Pages() int {
	if l.MaxPages <= 0 {
		return DefaultMaxPages
	}
	return l.MaxPages
}
