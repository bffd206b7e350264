package academic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// Capability is the metric capability label and error prefix of the
// academic clients' httpx.Client.
const Capability = "academic"

// ClientOptions configures a Client.
type ClientOptions struct {
	// API names the service in errors and metrics ("semanticscholar",
	// "openalex"). HTTP.Backend and HTTP.Capability default to API and
	// Capability.
	API string
	// HTTP configures retries, timeouts, concurrency, the breaker, metrics
	// and the transport (see httpx.Options). Its Transport is wrapped so that
	// every attempt, retries included, honours MinInterval.
	HTTP httpx.Options
	// MinInterval is the minimum spacing between the starts of two requests
	// of this client (a rate.Limiter of one request per MinInterval, burst
	// one); ≤ 0 means none.
	MinInterval time.Duration
	// Secret, when non-empty (the API key), is replaced by "[redacted]" in
	// every error the client returns.
	Secret string
	// UserAgent, when non-empty, is sent as the User-Agent header.
	UserAgent string
}

// Client sends JSON requests to one academic API through an httpx.Client. It
// is safe for concurrent use.
type Client struct {
	api, backend, capability string
	hc                       *httpx.Client
	interval                 time.Duration
	limiter                  *rate.Limiter // nil: no spacing
	secret                   string
	userAgent                string
}

// NewClient returns a Client for o.
func NewClient(o ClientOptions) *Client {
	h := o.HTTP
	if h.Backend == "" {
		h.Backend = o.API
	}
	if h.Capability == "" {
		h.Capability = Capability
	}
	h.Call = cost.AcademicCall // a job's requests count as academic calls, not model calls
	if h.Transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		if h.MaxConcurrency > 0 {
			t.MaxIdleConnsPerHost = h.MaxConcurrency
		} else {
			t.MaxIdleConnsPerHost = httpx.DefaultMaxConcurrency
		}
		h.Transport = t
	}
	lim := newLimiter(o.MinInterval)
	h.Transport = spaced(h.Transport, lim)
	return &Client{
		api: o.API, backend: h.Backend, capability: h.Capability, hc: httpx.New(h),
		interval: o.MinInterval, limiter: lim, secret: o.Secret, userAgent: o.UserAgent,
	}
}

// API returns the API name the client was configured with.
func (c *Client) API() string { return c.api }

// MinInterval returns the configured spacing between requests.
func (c *Client) MinInterval() time.Duration { return c.interval }

// HTTP returns the underlying httpx.Client (for its breaker state).
func (c *Client) HTTP() *httpx.Client { return c.hc }

// GetJSON sends a GET to target with the extra header and decodes the 2xx
// JSON answer into out as a stream, reading at most b of it (see
// ListBound, OneBound). Failures are *httpx.Error values naming the API, the
// URL path (never the query, which may hold a key) and the status: a 404
// wraps ErrNotFound; an answer past b, or that is not JSON of out's shape
// (or is JSON null), wraps ErrBadResponse; the others as httpx.Client.Do
// says.
func (c *Client) GetJSON(ctx context.Context, target string, header http.Header, b httpx.Bound, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return c.wrap(fmt.Errorf("%s: building the request: %w", c.api, err))
	}
	c.setHeaders(req, header)
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.wrap(err)
	}
	return c.wrap(c.hc.ReadJSON(ctx, resp, req.URL.Path, b, out))
}

// PostJSON posts in as JSON to target with the extra header and decodes the
// 2xx JSON answer into out within b; errors as for GetJSON. The body is
// replayable, so the request is retried like a GET.
func (c *Client) PostJSON(ctx context.Context, target string, header http.Header, in any, b httpx.Bound, out any) error {
	h := http.Header{}
	for k, vs := range header {
		h[k] = vs
	}
	if c.userAgent != "" {
		h.Set("User-Agent", c.userAgent)
	}
	return c.wrap(c.hc.PostJSON(ctx, target, h, in, b, out, 0))
}

// BadResponse returns the error for an answer that decoded but makes no
// sense (a paging cursor going backwards, a batch answer of the wrong
// length): an *httpx.Error wrapping ErrBadResponse that names the path of
// target (a URL or a bare path; its query is left out).
func (c *Client) BadResponse(target, reason string) error {
	return c.wrap(c.badResponse(urlPath(target), 0, reason, nil))
}

func (c *Client) badResponse(path string, status int, reason string, body []byte) *httpx.Error {
	c.hc.Observer().ModelError(c.backend, c.capability, "bad_response")
	return &httpx.Error{Backend: c.backend, Capability: c.capability, Path: path, Status: status, Attempts: 1,
		Reason: reason, Message: httpx.Snippet(string(bytes.TrimSpace(body)), 200), Err: remoteerr.ErrBadResponse}
}

func (c *Client) setHeaders(req *http.Request, header http.Header) {
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Accept", "application/json")
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
}

// wrap turns a 404 *httpx.Error into one wrapping ErrNotFound and removes
// the secret from the error's text.
func (c *Client) wrap(err error) error {
	if err == nil {
		return nil
	}
	var he *httpx.Error
	if errors.As(err, &he) {
		if he.Status == http.StatusNotFound && errors.Is(he.Err, remoteerr.ErrRejected) {
			he.Err = remoteerr.ErrNotFound
		}
		he.Reason = c.redact(he.Reason)
		he.Message = c.redact(he.Message)
	}
	if c.secret != "" && strings.Contains(err.Error(), c.secret) {
		return &redactedError{err: err, secret: c.secret}
	}
	return err
}

func (c *Client) redact(s string) string {
	if c.secret == "" {
		return s
	}
	return strings.ReplaceAll(s, c.secret, "[redacted]")
}

// redactedError hides a secret in the text of the error it wraps.
type redactedError struct {
	err    error
	secret string
}

// Error returns the wrapped error's text with the secret replaced.
func (e *redactedError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.secret, "[redacted]")
}

// Unwrap returns the wrapped error.
func (e *redactedError) Unwrap() error { return e.err }

// urlPath returns the path of target, or "(unparsable URL)".
func urlPath(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Path
}

// EscapePath escapes each "/"-separated segment of p for use in a URL path,
// keeping the slashes (DOIs contain them and both APIs take them as is).
func EscapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
