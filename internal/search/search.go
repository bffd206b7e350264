// Package search asks a web search backend for result URLs: a SearxNG-style
// JSON API (GET {base}/search?q=…&format=json, answering
// {"results": [{"url": …, "title": …, "content": …}, …]}).
package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
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
var ErrNotConfigured = errors.New("no search backend configured (EVF_SEARCH_URL)")

// SearXNG is a client of a SearxNG-compatible JSON search API.
type SearXNG struct {
	base    *url.URL
	client  *http.Client
	maxBody int64
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
	return &SearXNG{base: u, client: &http.Client{Timeout: timeout}, maxBody: 4 << 20}, nil
}

// Search implements Searcher. Results without an http(s) URL are dropped.
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
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", s.base.Host, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, s.maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("search %s: read answer: %w", s.base.Host, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &StatusError{Host: s.base.Host, Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After")}
	}
	if int64(len(body)) > s.maxBody {
		return nil, fmt.Errorf("search %s: answer larger than %d bytes", s.base.Host, s.maxBody)
	}
	return Parse(body, limit)
}

// StatusError is a non-200 answer of the search backend.
type StatusError struct {
	Host       string
	Status     int
	RetryAfter string
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
	var ans struct {
		Results *[]Result `json:"results"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, fmt.Errorf("search: answer is not SearxNG JSON: %w", err)
	}
	if ans.Results == nil {
		return nil, errors.New(`search: answer has no "results" array`)
	}
	var out []Result
	seen := map[string]bool{}
	for _, r := range *ans.Results {
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
	return out, nil
}
