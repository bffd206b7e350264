// Package s2 is a client of the Semantic Scholar Graph API v1: papers by id
// (S2 paper id or DOI:, PMID:, ARXIV:, CorpusId: prefixed ids), batch
// lookups, and the paged /references and /citations lists with
// isInfluential, contexts and intents. It maps answers to the academic
// model and sends requests through academic.Client (retries honouring
// Retry-After, 404 as remoteerr.ErrNotFound, minimum spacing, API key kept out
// of errors).
package s2

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
)

// API is the client's name in errors and metrics.
const API = academic.SourceSemanticScholar

// Defaults of Options fields left zero.
const (
	DefaultBaseURL = "https://api.semanticscholar.org/graph/v1"
	// DefaultInterval spaces requests without an API key (1 request/s).
	DefaultInterval = time.Second
	// DefaultKeyInterval spaces requests with an API key (10 requests/s).
	DefaultKeyInterval = 100 * time.Millisecond
	// DefaultPageSize is the limit of one /references or /citations page.
	DefaultPageSize = 100
	// MaxPageSize is the largest page the API serves.
	MaxPageSize = 1000
	// MaxBatch is the most ids one /paper/batch request may carry.
	MaxBatch = 500
	// PaperBytes bounds the answer of one paper looked up by id with
	// DefaultPaperFields: its whole author list (thousands for a large
	// collaboration, about 60 bytes each) and abstract.
	PaperBytes = 2 << 20
)

// DefaultPaperFields are the fields requested for a paper when the caller
// names none.
var DefaultPaperFields = []string{
	"paperId", "corpusId", "externalIds", "url", "title", "abstract", "venue", "publicationVenue", "journal",
	"year", "publicationDate", "authors", "citationCount", "referenceCount", "influentialCitationCount",
}

// DefaultLinkFields are the fields requested for /references and /citations
// items when the caller names none: the link's own fields, then the linked
// paper's.
var DefaultLinkFields = append([]string{"isInfluential", "contexts", "intents"}, DefaultPaperFields...)

// Options configures a Client.
type Options struct {
	BaseURL string // "" means DefaultBaseURL
	// APIKey, when non-empty, is sent as the x-api-key header. Take it from
	// the environment; it never appears in errors.
	APIKey string
	// MinInterval is the minimum spacing between requests: 0 means
	// DefaultInterval without a key and DefaultKeyInterval with one, a
	// negative value no spacing.
	MinInterval time.Duration
	// PageSize is the limit of one list page: 0 means DefaultPageSize; at
	// most MaxPageSize.
	PageSize int
	// UserAgent, when non-empty, is sent as the User-Agent header.
	UserAgent string
	// HTTP configures retries, timeouts, concurrency, breaker, metrics and
	// transport; Backend and Capability default to API and
	// academic.Capability.
	HTTP httpx.Options
}

// Client is a Semantic Scholar Graph API client. It is safe for concurrent
// use.
type Client struct {
	base     string
	key      string
	pageSize int
	http     *academic.Client
}

// New returns a Client, or an error for an invalid base URL or page size.
func New(o Options) (*Client, error) {
	raw := o.BaseURL
	if raw == "" {
		raw = DefaultBaseURL
	}
	base, err := httpx.BaseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", API, err)
	}
	if o.PageSize < 0 || o.PageSize > MaxPageSize {
		return nil, fmt.Errorf("%s: page size %d outside 1..%d", API, o.PageSize, MaxPageSize)
	}
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	switch {
	case o.MinInterval < 0:
		o.MinInterval = 0
	case o.MinInterval == 0 && o.APIKey != "":
		o.MinInterval = DefaultKeyInterval
	case o.MinInterval == 0:
		o.MinInterval = DefaultInterval
	}
	return &Client{
		base: base, key: o.APIKey, pageSize: o.PageSize,
		http: academic.NewClient(academic.ClientOptions{
			API: API, HTTP: o.HTTP, MinInterval: o.MinInterval, Secret: o.APIKey, UserAgent: o.UserAgent,
		}),
	}, nil
}

// MinInterval returns the spacing between requests in force.
func (c *Client) MinInterval() time.Duration { return c.http.MinInterval() }

// ByDOI returns the Graph API id of a DOI ("DOI:10.1093/mind/lix.236.433"),
// normalised with academic.NormalizeDOI (or only trimmed when it does not
// look like a DOI).
func ByDOI(doi string) string { return "DOI:" + normalizedOr(academic.NormalizeDOI(doi), doi) }

// ByPMID returns the Graph API id of a PubMed id ("PMID:29456894").
func ByPMID(pmid string) string { return "PMID:" + normalizedOr(academic.NormalizePMID(pmid), pmid) }

// ByArXiv returns the Graph API id of an arXiv id ("ARXIV:2208.04425").
func ByArXiv(id string) string { return "ARXIV:" + normalizedOr(academic.NormalizeArXiv(id), id) }

// ByCorpusID returns the Graph API id of a corpus id ("CorpusId:1033682").
func ByCorpusID(id int64) string { return "CorpusId:" + strconv.FormatInt(id, 10) }

func normalizedOr(n, raw string) string {
	if n != "" {
		return n
	}
	return strings.TrimSpace(raw)
}

func (c *Client) header() http.Header {
	if c.key == "" {
		return nil
	}
	return http.Header{"X-Api-Key": {c.key}}
}

func fieldsParam(fields, def []string) string {
	if len(fields) == 0 {
		fields = def
	}
	return strings.Join(fields, ",")
}

// paperPath returns the escaped path of paper id under the base URL.
func paperPath(id string) (string, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return "", fmt.Errorf("%s: empty paper id", API)
	}
	return "/paper/" + academic.EscapePath(id), nil
}

// Paper looks up one paper by id: an S2 paper id or a prefixed id (see
// ByDOI, ByPMID, ByArXiv, ByCorpusID; the API also takes "CorpusID:",
// "MAG:", "ACL:", "PMCID:", "URL:"). fields nil means DefaultPaperFields.
// An unknown paper is an error wrapping remoteerr.ErrNotFound.
func (c *Client) Paper(ctx context.Context, id string, fields ...string) (*academic.Paper, error) {
	p, err := paperPath(id)
	if err != nil {
		return nil, err
	}
	q := url.Values{"fields": {fieldsParam(fields, DefaultPaperFields)}}
	var pj paperJSON
	if err := c.http.GetJSON(ctx, c.base+p+"?"+q.Encode(), c.header(), academic.OneBound(PaperBytes, "one paper"), &pj); err != nil {
		return nil, err
	}
	paper := toPaper(&pj)
	return &paper, nil
}

// Papers looks up many papers with POST /paper/batch (MaxBatch ids per
// request). The result is aligned with ids: nil where the API knows no such
// paper. fields nil means DefaultPaperFields.
func (c *Client) Papers(ctx context.Context, ids []string, fields ...string) ([]*academic.Paper, error) {
	out := make([]*academic.Paper, 0, len(ids))
	q := url.Values{"fields": {fieldsParam(fields, DefaultPaperFields)}}
	target := c.base + "/paper/batch?" + q.Encode()
	for start := 0; start < len(ids); start += MaxBatch {
		chunk := ids[start:min(start+MaxBatch, len(ids))]
		var answer []*paperJSON
		bound := academic.ListBound(len(chunk), "papers of a batch")
		if err := c.http.PostJSON(ctx, target, c.header(), map[string][]string{"ids": chunk}, bound, &answer); err != nil {
			return nil, err
		}
		if len(answer) != len(chunk) {
			return nil, c.http.BadResponse(target,
				fmt.Sprintf("batch answer has %d entries for %d ids", len(answer), len(chunk)))
		}
		for _, pj := range answer {
			if pj == nil {
				out = append(out, nil)
				continue
			}
			p := toPaper(pj)
			out = append(out, &p)
		}
	}
	return out, nil
}

// References lists the papers that paper id cites (GET
// /paper/{id}/references), each with isInfluential, contexts and intents
// when requested. fields nil means DefaultLinkFields. See Citations for
// paging and the results.
func (c *Client) References(ctx context.Context, id string, lim academic.Limit, fields ...string) ([]academic.Link, bool, error) {
	return c.links(ctx, id, "references", lim, fields)
}

// Citations lists the papers citing paper id (GET /paper/{id}/citations).
// fields nil means DefaultLinkFields. It pages with offset and limit
// (Options.PageSize), following the answer's next, and stops at the page
// without next or with no data, or at lim. more reports that it stopped at
// lim while the API had more. Items whose paper the API could not resolve
// (null paperId) are kept, with what the API said of them. On an error the
// links read so far are returned with it.
func (c *Client) Citations(ctx context.Context, id string, lim academic.Limit, fields ...string) ([]academic.Link, bool, error) {
	return c.links(ctx, id, "citations", lim, fields)
}

func (c *Client) links(ctx context.Context, id, kind string, lim academic.Limit, fields []string) (links []academic.Link, more bool, err error) {
	p, err := paperPath(id)
	if err != nil {
		return nil, false, err
	}
	p += "/" + kind
	citing := kind == "citations"
	maxItems, maxPages := lim.Items(), lim.Pages()
	f := fieldsParam(fields, DefaultLinkFields)
	offset := 0
	for pages := 0; ; pages++ {
		if err := ctx.Err(); err != nil {
			return links, false, fmt.Errorf("%s %s: %w", API, p, err)
		}
		if pages >= maxPages {
			return links, true, nil // only reached while the last page had a next
		}
		q := url.Values{"fields": {f}, "offset": {strconv.Itoa(offset)}, "limit": {strconv.Itoa(c.pageSize)}}
		var pg pageJSON
		if err := c.http.GetJSON(ctx, c.base+p+"?"+q.Encode(), c.header(), academic.ListBound(c.pageSize, kind), &pg); err != nil {
			return links, false, err
		}
		for _, l := range pg.Data {
			if len(links) >= maxItems {
				return links, true, nil // items of this page left over
			}
			links = append(links, toLink(l, citing))
		}
		if pg.Next == nil || len(pg.Data) == 0 {
			return links, false, nil
		}
		if *pg.Next <= offset {
			return links, false, c.http.BadResponse(c.base+p,
				fmt.Sprintf("next offset %d does not advance past offset %d", *pg.Next, offset))
		}
		if len(links) >= maxItems {
			return links, true, nil
		}
		offset = *pg.Next
	}
}

// Search returns up to limit papers matching a free-text query (GET
// /paper/search, relevance order). fields nil means DefaultPaperFields.
func (c *Client) Search(ctx context.Context, query string, limit int, fields ...string) ([]academic.Paper, error) {
	limit = min(max(limit, 1), MaxPageSize)
	q := url.Values{"query": {query}, "limit": {strconv.Itoa(limit)}, "fields": {fieldsParam(fields, DefaultPaperFields)}}
	var ans struct {
		Data []paperJSON `json:"data"`
	}
	if err := c.http.GetJSON(ctx, c.base+"/paper/search?"+q.Encode(), c.header(), academic.ListBound(limit, "search results"), &ans); err != nil {
		return nil, err
	}
	out := make([]academic.Paper, 0, len(ans.Data))
	for i := range ans.Data {
		out = append(out, toPaper(&ans.Data[i]))
	}
	return out, nil
}
