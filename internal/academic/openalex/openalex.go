// Package openalex is a client of the OpenAlex API: works by OpenAlex id,
// DOI or PMID (with the abstract rebuilt from abstract_inverted_index and
// the referenced_works), batched lookups with filter=openalex:W1|W2|…, and
// the works citing (filter=cites:) or cited by (filter=cited_by:) given
// works, paged by cursor or page number within caller-given bounds. It maps
// answers to the academic model and sends requests through academic.Client
// (retries honouring Retry-After, 404 as remoteerr.ErrNotFound, minimum
// spacing, API key kept out of errors).
package openalex

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/academic"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
)

// API is the client's name in errors and metrics.
const API = academic.SourceOpenAlex

// Defaults and limits.
const (
	DefaultBaseURL = "https://api.openalex.org"
	// DefaultInterval spaces requests (10 requests/s).
	DefaultInterval = 100 * time.Millisecond
	// DefaultPerPage is the per-page of list requests, also the API's
	// maximum.
	DefaultPerPage = 200
	// MaxFilterIDs is the most ids put into one OR filter (W1|W2|…).
	MaxFilterIDs = 50
	// MaxPagedResults is how deep page-number paging reaches (page ×
	// per-page); cursor paging has no such limit.
	MaxPagedResults = 10000
	// WorkBytes bounds the answer of one work looked up by id, whose
	// authorships are not cut at 100 as in lists (thousands for a large
	// collaboration, about 1 KiB each with their institutions).
	WorkBytes = 8 << 20
)

// Options configures a Client.
type Options struct {
	BaseURL string // "" means DefaultBaseURL
	// APIKey, when non-empty, is sent as the api_key query parameter. Take
	// it from the environment; it never appears in errors.
	APIKey string
	// Mailto, when non-empty, is sent as the mailto query parameter (the
	// polite pool).
	Mailto string
	// MinInterval is the minimum spacing between requests: 0 means
	// DefaultInterval, a negative value no spacing.
	MinInterval time.Duration
	// PerPage is the per-page of list requests: 0 means DefaultPerPage; at
	// most 200.
	PerPage int
	// PagePaging pages lists with page=N (page 1 sends no page parameter)
	// instead of cursor=*, next_cursor; it reaches MaxPagedResults at most.
	PagePaging bool
	// UserAgent, when non-empty, is sent as the User-Agent header.
	UserAgent string
	// HTTP configures retries, timeouts, concurrency, breaker, metrics and
	// transport; Backend and Capability default to API and
	// academic.Capability.
	HTTP httpx.Options
}

// Client is an OpenAlex client. It is safe for concurrent use.
type Client struct {
	base, key, mailto string
	perPage           int
	pagePaging        bool
	http              *academic.Client
}

// New returns a Client, or an error for an invalid base URL or per-page.
func New(o Options) (*Client, error) {
	raw := o.BaseURL
	if raw == "" {
		raw = DefaultBaseURL
	}
	base, err := httpx.BaseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", API, err)
	}
	if o.PerPage < 0 || o.PerPage > DefaultPerPage {
		return nil, fmt.Errorf("%s: per-page %d outside 1..%d", API, o.PerPage, DefaultPerPage)
	}
	if o.PerPage == 0 {
		o.PerPage = DefaultPerPage
	}
	switch {
	case o.MinInterval < 0:
		o.MinInterval = 0
	case o.MinInterval == 0:
		o.MinInterval = DefaultInterval
	}
	return &Client{
		base: base, key: o.APIKey, mailto: strings.TrimSpace(o.Mailto), perPage: o.PerPage, pagePaging: o.PagePaging,
		http: academic.NewClient(academic.ClientOptions{
			API: API, HTTP: o.HTTP, MinInterval: o.MinInterval, Secret: o.APIKey, UserAgent: o.UserAgent,
		}),
	}, nil
}

// MinInterval returns the spacing between requests in force.
func (c *Client) MinInterval() time.Duration { return c.http.MinInterval() }

// target returns base+path with q plus api_key and mailto.
func (c *Client) target(path string, q url.Values) string {
	if q == nil {
		q = url.Values{}
	}
	if c.key != "" {
		q.Set("api_key", c.key)
	}
	if c.mailto != "" {
		q.Set("mailto", c.mailto)
	}
	t := c.base + path
	if len(q) > 0 {
		t += "?" + q.Encode()
	}
	return t
}

func (c *Client) work(ctx context.Context, path string) (*academic.Paper, error) {
	var w workJSON
	if err := c.http.GetJSON(ctx, c.target(path, nil), nil, academic.OneBound(WorkBytes, "one work"), &w); err != nil {
		return nil, err
	}
	if w.ID == "" {
		return nil, c.http.BadResponse(path, "the work has no id")
	}
	p := toPaper(&w)
	return &p, nil
}

// Work looks up a work by OpenAlex id ("W2741809807" or its URL). An unknown
// work is an error wrapping remoteerr.ErrNotFound.
func (c *Client) Work(ctx context.Context, id string) (*academic.Paper, error) {
	w, err := WorkID(id)
	if err != nil {
		return nil, err
	}
	return c.work(ctx, "/works/"+w)
}

// WorkByDOI looks up a work by DOI (any form academic.NormalizeDOI reads)
// with GET /works/doi:{doi}.
func (c *Client) WorkByDOI(ctx context.Context, doi string) (*academic.Paper, error) {
	d := academic.NormalizeDOI(doi)
	if d == "" {
		return nil, fmt.Errorf("%s: %q is not a DOI", API, doi)
	}
	return c.work(ctx, "/works/doi:"+academic.EscapePath(d))
}

// WorkByPMID looks up a work by PubMed id with GET /works/pmid:{pmid}.
func (c *Client) WorkByPMID(ctx context.Context, pmid string) (*academic.Paper, error) {
	p := academic.NormalizePMID(pmid)
	if p == "" {
		return nil, fmt.Errorf("%s: %q is not a PubMed id", API, pmid)
	}
	return c.work(ctx, "/works/pmid:"+p)
}

// Works looks up many works by OpenAlex id with
// /works?filter=openalex:W1|W2|… (MaxFilterIDs per request). The result is
// aligned with ids: nil where OpenAlex returned no work of that id (unknown,
// or merged into another id).
func (c *Client) Works(ctx context.Context, ids []string) ([]*academic.Paper, error) {
	short := make([]string, len(ids))
	var uniq []string
	seen := map[string]bool{}
	for i, id := range ids {
		w, err := WorkID(id)
		if err != nil {
			return nil, err
		}
		short[i] = w
		if !seen[w] {
			seen[w] = true
			uniq = append(uniq, w)
		}
	}
	chunks := (len(uniq) + MaxFilterIDs - 1) / MaxFilterIDs
	works, _, err := c.list(ctx, "openalex", uniq, academic.Limit{MaxItems: len(uniq), MaxPages: len(uniq) + chunks})
	if err != nil {
		return nil, err
	}
	byID := map[string]*academic.Paper{}
	for i := range works {
		p := toPaper(&works[i])
		byID[p.OpenAlexID] = &p
	}
	out := make([]*academic.Paper, len(ids))
	for i, w := range short {
		out[i] = byID[w]
	}
	return out, nil
}

// Citations lists the works citing any of ids (filter=cites:W1|W2|…). See
// References for paging and the results.
func (c *Client) Citations(ctx context.Context, lim academic.Limit, ids ...string) ([]academic.Link, bool, error) {
	return c.links(ctx, "cites", lim, ids)
}

// References lists the works that any of ids cites, in full
// (filter=cited_by:W1|W2|…); Work's Paper.References has only their ids.
// It pages by cursor (or page number with Options.PagePaging) with
// Options.PerPage, MaxFilterIDs ids per filter, and stops at an empty or
// short page, once meta.count results are read, or at lim; more reports
// that it stopped at lim before the listing was exhausted. On an error the
// links read so far are returned with it.
func (c *Client) References(ctx context.Context, lim academic.Limit, ids ...string) ([]academic.Link, bool, error) {
	return c.links(ctx, "cited_by", lim, ids)
}

func (c *Client) links(ctx context.Context, filter string, lim academic.Limit, ids []string) ([]academic.Link, bool, error) {
	short := make([]string, 0, len(ids))
	for _, id := range ids {
		w, err := WorkID(id)
		if err != nil {
			return nil, false, err
		}
		short = append(short, w)
	}
	if len(short) == 0 {
		return nil, false, fmt.Errorf("%s: filter %s: no work ids", API, filter)
	}
	works, more, err := c.list(ctx, filter, short, lim)
	links := make([]academic.Link, len(works))
	for i := range works {
		links[i] = academic.Link{Paper: toPaper(&works[i]), Source: academic.SourceOpenAlex}
	}
	return links, more, err
}

// list reads /works?filter={key}:{ids joined by |}, MaxFilterIDs ids per
// filter, within lim.
func (c *Client) list(ctx context.Context, key string, ids []string, lim academic.Limit) (works []workJSON, more bool, err error) {
	maxItems, pagesLeft := lim.Items(), lim.Pages()
	for start := 0; start < len(ids); start += MaxFilterIDs {
		chunk := ids[start:min(start+MaxFilterIDs, len(ids))]
		filter := key + ":" + strings.Join(chunk, "|")
		cursor, page, read := "*", 1, 0
		for {
			if err := ctx.Err(); err != nil {
				return works, false, fmt.Errorf("%s /works filter %s: %w", API, key, err)
			}
			if len(works) >= maxItems || pagesLeft <= 0 {
				return works, true, nil
			}
			q := url.Values{"filter": {filter}, "per-page": {strconv.Itoa(c.perPage)}}
			if !c.pagePaging {
				q.Set("cursor", cursor)
			} else if page > 1 {
				q.Set("page", strconv.Itoa(page))
			}
			var ans listJSON
			if err := c.http.GetJSON(ctx, c.target("/works", q), nil, academic.ListBound(c.perPage, "works"), &ans); err != nil {
				return works, false, err
			}
			pagesLeft--
			for _, w := range ans.Results {
				if len(works) >= maxItems {
					return works, true, nil // results of this page left over
				}
				works = append(works, w)
			}
			read += len(ans.Results)
			done := len(ans.Results) < c.perPage || (ans.Meta.Count > 0 && read >= ans.Meta.Count)
			if c.pagePaging {
				if !done && (page+1)*c.perPage > MaxPagedResults {
					return works, true, nil // page paging reaches no further
				}
				page++
			} else {
				if ans.Meta.NextCursor == nil || *ans.Meta.NextCursor == "" {
					done = true
				} else {
					cursor = *ans.Meta.NextCursor
				}
			}
			if done {
				break
			}
		}
	}
	return works, false, nil
}

// Search returns up to limit works matching a free-text query (GET
// /works?search=…, relevance order; at most 200).
func (c *Client) Search(ctx context.Context, query string, limit int) ([]academic.Paper, error) {
	limit = min(max(limit, 1), 200)
	var ans listJSON
	q := url.Values{"search": {query}, "per-page": {strconv.Itoa(limit)}}
	if err := c.http.GetJSON(ctx, c.target("/works", q), nil, academic.ListBound(limit, "search results"), &ans); err != nil {
		return nil, err
	}
	out := make([]academic.Paper, 0, len(ans.Results))
	for i := range ans.Results {
		out = append(out, toPaper(&ans.Results[i]))
	}
	return out, nil
}
