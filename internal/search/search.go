// Package search asks a web search backend for result URLs: a SearxNG-style
// JSON API (GET {base}/search?q=…&format=json, answering
// {"results": [{"url": …, "title": …, "content": …}, …]}), read as a stream
// within the bound of a page of results (PageBound).
package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// Result is one search hit.
type Result struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Snippet string `json:"content"`
}

// Searcher returns up to limit results for a query.
type Searcher interface {
	Search(ctx context.Context, query string, limit int) ([]Result, error)
}

// ErrNotConfigured is returned by a nil *SearXNG: no backend is set up.
var ErrNotConfigured = errors.New("no search backend configured (EVF_SEARCH_URL, or EVF_REPLAY_DIR for the replay archive's offline search)")

// SearXNG is a client of a SearxNG-compatible JSON search API.
type SearXNG struct {
	base   *url.URL
	client *http.Client
}

// What one search can need. SearxNG takes no limit parameter: a page holds
// what its engines found (tens of results), so an answer is bounded by the
// larger of the request's limit and PageResults, each result at most
// ResultBytes.
const (
	// PageResults bounds the results of one SearxNG page.
	PageResults = 100
	// ResultBytes bounds one result: URL, title, snippet, engines, scores,
	// thumbnail (about 1–2 KiB as SearxNG sends them).
	ResultBytes = 8 << 10
	// envelopeBytes bounds the rest of a page: answers, infoboxes,
	// suggestions, corrections, unresponsive engines.
	envelopeBytes = 256 << 10
	// maxResultBytes bounds any one result: an outlier may pass ResultBytes
	// as long as the page does not.
	maxResultBytes = 64 << 10
	// errorBodyBytes bounds the part of a non-200 answer that is read.
	errorBodyBytes = 8 << 10
)

// PageBound is the bound of one SearxNG answer to a search for limit results.
func PageBound(limit int) httpx.Bound {
	n := max(limit, PageResults)
	return httpx.Bound{Bytes: envelopeBytes + int64(n)*ResultBytes, ItemBytes: maxResultBytes,
		What: fmt.Sprintf("a page of search results (at most %d)", n)}
}

// NewSearXNG returns a client for the API at base (e.g. http://searxng:8080).
func NewSearXNG(base string, timeout time.Duration) (*SearXNG, error) {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("search: invalid base URL %q", base)
	}
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	return &SearXNG{base: u, client: &http.Client{Timeout: timeout}}, nil
}

// Search implements Searcher; every request counts as a search in the
// job's cost meter (cost.From). Results without an http(s) URL are dropped.
// The answer is decoded as a stream within PageBound(limit); past it (or
// with a Content-Length over it) the search fails with an error wrapping
// *httpx.TooLargeError, so remoteerr.ErrBadResponse.
func (s *SearXNG) Search(ctx context.Context, query string, limit int) ([]Result, error) {
	if s == nil {
		return nil, ErrNotConfigured
	}
	u := *s.base
	u.Path += "/search"
	u.RawQuery = url.Values{"q": {query}, "format": {"json"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	cost.From(ctx).Search() // sent, whatever comes back
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", s.base.Host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, errorBodyBytes))
		ra := resp.Header.Get("Retry-After")
		wait, _ := remoteerr.ParseRetryAfter(ra, time.Now())
		return nil, &StatusError{Host: s.base.Host, Status: resp.StatusCode, Wait: wait}
	}
	bound := PageBound(limit)
	if resp.ContentLength > bound.Bytes { // declared too large: not read at all
		return nil, fmt.Errorf("search %s: %w", s.base.Host, &httpx.TooLargeError{Bound: bound})
	}
	br := httpx.NewBoundedReader(resp.Body, bound)
	results, err := decode(br, bound)
	switch {
	case br.ReadErr() != nil:
		return nil, fmt.Errorf("search %s: read answer: %w", s.base.Host, br.ReadErr())
	case err != nil:
		return nil, fmt.Errorf("search %s: %w", s.base.Host, err)
	}
	return filter(results, limit), nil
}

// StatusError is a non-200 answer of the search backend.
type StatusError struct {
	Host   string
	Status int
	// Wait is the wait the answer's Retry-After asks for
	// (remoteerr.ParseRetryAfter: seconds or an HTTP-date, bounded by
	// remoteerr.MaxRetryAfter); 0 when the header is absent or invalid.
	Wait time.Duration
}

// RetryAfter is the server's wait (remoteerr.RetryAfterer).
func (e *StatusError) RetryAfter() time.Duration { return e.Wait }

// Failure is the error table's row: a refusal (4xx other than 429) fails
// the query target; a busy backend with a Retry-After snoozes the job;
// any other answer names none (an attempt).
func (e *StatusError) Failure() errs.Failure {
	switch {
	case !e.Temporary():
		return errs.TargetFailed
	case e.Wait > 0:
		return errs.ServerBusy
	}
	return ""
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("search %s: HTTP %d", e.Host, e.Status)
}

// Temporary reports whether the search may succeed later (429 or 5xx).
func (e *StatusError) Temporary() bool {
	return e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// Parse reads a SearxNG JSON answer: the results' URLs in rank order,
// without duplicates or non-http(s) URLs, at most limit (0: all).
func Parse(body []byte, limit int) ([]Result, error) {
	results, err := decode(bytes.NewReader(body), httpx.Bound{Bytes: int64(len(body)), What: "a page of search results"})
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return filter(results, limit), nil
}

// decode reads the results of a SearxNG JSON answer within b; an answer
// past b is a *httpx.TooLargeError.
func decode(r io.Reader, b httpx.Bound) ([]Result, error) {
	var ans struct {
		Results *[]Result `json:"results"`
	}
	if err := httpx.DecodeJSON(r, b, &ans); err != nil {
		var tooLarge *httpx.TooLargeError
		if errors.As(err, &tooLarge) {
			return nil, tooLarge
		}
		return nil, fmt.Errorf("answer is not SearxNG JSON: %w", err)
	}
	if ans.Results == nil {
		return nil, errors.New(`answer has no "results" array`)
	}
	return *ans.Results, nil
}

// filter keeps the results with a new http(s) URL, at most limit (0: all).
func filter(results []Result, limit int) []Result {
	var out []Result
	seen := map[string]bool{}
	for _, r := range results {
		u, err := url.Parse(strings.TrimSpace(r.URL))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || seen[u.String()] {
			continue
		}
		seen[u.String()] = true
		r.URL = u.String()
		out = append(out, r)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}
