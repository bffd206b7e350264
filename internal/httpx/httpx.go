// Package httpx is the resilient HTTP client shared by the model backends
// (OpenAI-compatible, TEI, Jina-style), the scholarly-metadata clients
// (internal/academic) and the search backend: per-attempt timeouts, bounded
// concurrency, retries with exponential backoff and full jitter that honour
// Retry-After, a consecutive-failure circuit breaker, errors that wrap the
// error kinds of internal/remoteerr (remoteerr.ErrUnavailable,
// remoteerr.ErrRejected, remoteerr.ErrBadResponse) and carry a retry hint
// (remoteerr.RetryAfterer), and a report of every attempt to an Observer
// (observer.go; internal/metrics turns it into Prometheus series).
//
// Every 2xx answer is read within a Bound computed from its request
// (bounds.go: the batch's embeddings, the chat answer's max_tokens, the
// labels or documents scored): the byte past it stops the reading with
// remoteerr.ErrBadResponse naming the bound, and answers are decoded as a
// stream (DecodeJSON), never read whole first.
//
// Retryable failures are connection errors, per-attempt timeouts and the
// statuses 408, 424 (TEI's backend error), 429, 500, 502, 503 and 504. Other
// 4xx answers are not retried and wrap remoteerr.ErrRejected; other non-2xx
// answers are not retried and wrap remoteerr.ErrUnavailable. A request whose
// context the caller cancelled returns the context error (wrapped), never
// ErrUnavailable.
//
// The circuit breaker counts failed *attempts*: every attempt that ends in a
// retryable failure (or a non-retryable 5xx) adds one, every attempt that
// reaches a healthy server (2xx, or a 4xx rejection) resets the count, and a
// cancelled attempt changes nothing. BreakerFailures consecutive failures open
// the breaker; while it is open every attempt fails fast with ErrUnavailable
// ("circuit open") without touching the network. After BreakerCooldown it is
// half-open: one probe attempt at a time goes through, the others still fail
// fast; a successful probe closes it, a failed one opens it again.
//
// The concurrency bound is a failsafe-go bulkhead. The retry loop and the
// breaker are this package's own: they run on the Options' clock, sleep and
// random hooks (failsafe-go's retry policy and circuit breaker run on the
// wall clock and global random numbers), so tests check every wait and
// cooldown without sleeping through them; and a cancelled probe leaves the
// breaker as it was, which failsafe-go's breaker, whose half-open permits
// only a recorded success or failure gives back, cannot do.
package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/failsafe-go/failsafe-go/bulkhead"

	"github.com/evidencefleet/evidencefleet/internal/clock"
	"github.com/evidencefleet/evidencefleet/internal/cost"
	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// Defaults of Options fields left zero.
const (
	DefaultTimeout         = 30 * time.Second
	DefaultMaxRetries      = 4
	DefaultBaseBackoff     = 250 * time.Millisecond
	DefaultMaxBackoff      = 10 * time.Second
	DefaultMaxConcurrency  = 4
	DefaultBreakerFailures = 5
	DefaultBreakerCooldown = 30 * time.Second
	DefaultMaxRetryAfter   = 60 * time.Second
	// snippetBytes bounds the error-body excerpt put into error messages.
	snippetBytes = 200
)

// Options configures a Client. Zero numeric fields take the defaults above;
// a negative MaxRetries means no retries.
type Options struct {
	Backend    string        // metric label and error prefix: "openai", "tei", "jina"
	Capability string        // metric label and error prefix: "embed", "nli", "rerank", "llm"
	Timeout    time.Duration // per attempt, including reading the body of a 2xx answer
	MaxRetries int           // retries after the first attempt for retryable failures
	// BaseBackoff and MaxBackoff shape the exponential backoff with full
	// jitter: before retry n (0-based) the client waits a uniformly random
	// time in [0, min(MaxBackoff, BaseBackoff·2ⁿ)).
	BaseBackoff, MaxBackoff time.Duration
	MaxConcurrency          int           // attempts in flight per Client; waiting for a slot honours ctx
	BreakerFailures         int           // consecutive failed attempts that open the breaker
	BreakerCooldown         time.Duration // open → half-open after this
	// MaxRetryAfter caps an honoured Retry-After; a larger one makes the
	// request give up at once with ErrUnavailable.
	MaxRetryAfter time.Duration
	Observer      Observer          // nil: NoObserver
	Transport     http.RoundTripper // nil: a clone of http.DefaultTransport
	// Call is what every request handed to the transport counts as in the
	// job's cost meter (cost.From of the request's context): a model call
	// (the zero value) or an academic API call.
	Call cost.Call

	// Test hooks; nil means the real clock, a real timer and math/rand.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
	rand  func() float64
}

// State is the circuit breaker's state.
type State int

// Breaker states.
const (
	Closed   State = iota // requests flow
	Open                  // requests fail fast
	HalfOpen              // one probe at a time
)

// String returns "closed", "open" or "half-open".
func (s State) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Client sends requests to one model backend. It is safe for concurrent use.
type Client struct {
	o  Options
	hc *http.Client
	// slots bounds the attempts in flight to MaxConcurrency: an attempt holds
	// a permit until its answer is read or it fails.
	slots bulkhead.Bulkhead[*http.Response]

	mu       sync.Mutex
	state    State
	failures int       // consecutive failed attempts
	openedAt time.Time // when the breaker last opened
	probing  bool      // a half-open probe is in flight
}

// New returns a Client with o's zero fields set to their defaults.
func New(o Options) *Client {
	if o.Observer == nil {
		o.Observer = NoObserver
	}
	o.Observer.PrepareModel(o.Backend, o.Capability)
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	} else if o.MaxRetries < 0 {
		o.MaxRetries = 0
	}
	if o.BaseBackoff <= 0 {
		o.BaseBackoff = DefaultBaseBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.MaxBackoff < o.BaseBackoff {
		o.MaxBackoff = o.BaseBackoff
	}
	if o.MaxConcurrency <= 0 {
		o.MaxConcurrency = DefaultMaxConcurrency
	}
	if o.BreakerFailures <= 0 {
		o.BreakerFailures = DefaultBreakerFailures
	}
	if o.BreakerCooldown <= 0 {
		o.BreakerCooldown = DefaultBreakerCooldown
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if o.Transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = o.MaxConcurrency
		o.Transport = t
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.sleep == nil {
		o.sleep = clock.Sleep
	}
	if o.rand == nil {
		o.rand = rand.Float64
	}
	return &Client{
		o:     o,
		hc:    &http.Client{Transport: o.Transport, CheckRedirect: keepCredentialsOnHost},
		slots: bulkhead.New[*http.Response](uint(o.MaxConcurrency)),
	}
}

// Backend returns the backend label the client was configured with.
func (c *Client) Backend() string { return c.o.Backend }

// Capability returns the capability label the client was configured with.
func (c *Client) Capability() string { return c.o.Capability }

// Observer returns the observer the client reports to (NoObserver when
// none was given).
func (c *Client) Observer() Observer { return c.o.Observer }

// Breaker reports the circuit breaker's state; an open breaker whose cooldown
// has passed reports HalfOpen.
func (c *Client) Breaker() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == Open && !c.o.now().Before(c.openedAt.Add(c.o.BreakerCooldown)) {
		return HalfOpen
	}
	return c.state
}

// Error is the error every failed request returns. It wraps one of
// remoteerr.ErrUnavailable, remoteerr.ErrRejected, remoteerr.ErrBadResponse or,
// when the caller's context ended, the context's error.
type Error struct {
	Backend, Capability string
	Path                string // URL path of the request
	Status              int    // HTTP status of the last answer; 0 when there was none
	Attempts            int    // HTTP attempts made
	Reason              string // what went wrong, e.g. "circuit open", "timeout", "status 503"
	Message             string // ≤200-byte excerpt of the error body or the backend's error message
	Err                 error  // the sentinel or context error
	// RetryIn, when positive, is when asking again may succeed: the open
	// breaker's remaining cooldown, or a Retry-After longer than the client
	// waits by itself.
	RetryIn time.Duration
}

// RetryAfter reports Error.RetryIn, so callers that only see an error (a
// job deciding how long to wait) can honour it (remoteerr.RetryAfter).
func (e *Error) RetryAfter() time.Duration { return e.RetryIn }

var _ remoteerr.RetryAfterer = (*Error)(nil)

// Error names backend, capability, path, the sentinel, the reason, status,
// attempts and the body excerpt.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s: %v", e.Backend, e.Capability, e.Path, e.Err)
	if e.Reason != "" {
		b.WriteString(": " + e.Reason)
	}
	if e.Status != 0 && !strings.Contains(e.Reason, strconv.Itoa(e.Status)) {
		fmt.Fprintf(&b, " (status %d)", e.Status)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %q", e.Message)
	}
	return b.String()
}

// Unwrap returns the wrapped sentinel or context error.
func (e *Error) Unwrap() error { return e.Err }

// failure is the outcome of one failed attempt.
type failure struct {
	kind       string // metric kind
	status     int
	reason     string
	message    string
	retryable  bool
	breaker    bool          // counts as a breaker failure
	retryAfter time.Duration // honoured Retry-After; -1 when absent or invalid
	sentinel   error
}

// Do sends req with retries and returns the 2xx response, whose body the
// caller must close (closing also frees the concurrency slot; the per-attempt
// Timeout keeps running while the body is read). Every other outcome is an
// *Error and a nil response. Do satisfies go-openai's HTTPDoer.
//
// A request with a body is retried only if req.GetBody is set (as
// http.NewRequest does for bytes and strings readers).
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	path := req.URL.Path
	hasBody := req.Body != nil && req.Body != http.NoBody
	maxAttempts := 1 + c.o.MaxRetries
	if hasBody && req.GetBody == nil {
		maxAttempts = 1
	}
	// http.Client.Do closes the request body it is given, so the original
	// body needs closing here only when no attempt was sent.
	sends := 0 // requests handed to the transport
	closeBody := func() {
		if hasBody && sends == 0 {
			_ = req.Body.Close()
		}
	}
	mkErr := func(sentinel error, f *failure, attempts int, reason string) *Error {
		e := &Error{Backend: c.o.Backend, Capability: c.o.Capability, Path: path, Attempts: attempts, Reason: reason, Err: sentinel}
		if f != nil {
			e.Status, e.Message = f.status, f.message
			if e.Reason == "" {
				e.Reason = f.reason
			}
		}
		return e
	}
	var last *failure
	attempts := 0
	for {
		if err := ctx.Err(); err != nil {
			c.o.Observer.ModelError(c.o.Backend, c.o.Capability, "canceled")
			closeBody()
			return nil, mkErr(err, last, attempts, "context ended")
		}
		resp, f, err := c.attempt(ctx, req, attempts, &sends)
		if err != nil { // caller's ctx ended or the body could not be replayed
			closeBody()
			if errors.Is(err, errCircuitOpen) {
				e := mkErr(remoteerr.ErrUnavailable, last, sends, "circuit open")
				e.RetryIn = c.cooldownLeft()
				return nil, e
			}
			if ctx.Err() != nil {
				return nil, mkErr(ctx.Err(), last, sends, "context ended")
			}
			return nil, mkErr(remoteerr.ErrRejected, last, sends, err.Error())
		}
		attempts++
		if f == nil {
			return resp, nil
		}
		last = f
		if !f.retryable {
			closeBody()
			return nil, mkErr(f.sentinel, f, attempts, "")
		}
		if attempts >= maxAttempts {
			closeBody()
			reason := f.reason
			if hasBody && req.GetBody == nil && c.o.MaxRetries > 0 {
				reason += " (body not replayable, no retry)"
			}
			e := mkErr(remoteerr.ErrUnavailable, f, attempts, reason)
			e.RetryIn = max(f.retryAfter, c.cooldownLeft())
			return nil, e
		}
		wait := c.backoff(attempts - 1)
		if f.retryAfter >= 0 {
			if f.retryAfter > c.o.MaxRetryAfter {
				closeBody()
				e := mkErr(remoteerr.ErrUnavailable, f, attempts,
					fmt.Sprintf("%s, Retry-After %s exceeds the %s cap", f.reason, f.retryAfter, c.o.MaxRetryAfter))
				e.RetryIn = f.retryAfter
				return nil, e
			}
			wait = f.retryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			closeBody()
			e := mkErr(remoteerr.ErrUnavailable, f, attempts,
				fmt.Sprintf("%s, next retry in %s is past the context deadline", f.reason, wait.Round(time.Millisecond)))
			e.RetryIn = wait
			return nil, e
		}
		if err := c.o.sleep(ctx, wait); err != nil {
			c.o.Observer.ModelError(c.o.Backend, c.o.Capability, "canceled")
			closeBody()
			return nil, mkErr(err, f, attempts, "context ended while waiting to retry")
		}
	}
}

// errCircuitOpen reports a fail-fast attempt.
var errCircuitOpen = errors.New("circuit open")

// attempt makes one HTTP attempt (n is its 0-based index). It returns the 2xx
// response, or a failure, or an error when no attempt could be made (the
// caller's context ended, the breaker is open, the body cannot be replayed).
// It counts in *sends every request handed to the transport.
func (c *Client) attempt(ctx context.Context, req *http.Request, n int, sends *int) (*http.Response, *failure, error) {
	if err := c.slots.AcquirePermit(ctx); err != nil { // only ctx's error
		c.o.Observer.ModelError(c.o.Backend, c.o.Capability, "canceled")
		return nil, nil, err
	}
	var once sync.Once
	release := func() { once.Do(c.slots.ReleasePermit) }
	probe, ok := c.admit()
	if !ok {
		release()
		c.o.Observer.ModelError(c.o.Backend, c.o.Capability, "circuit_open")
		return nil, nil, errCircuitOpen
	}
	actx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	stop := context.AfterFunc(actx, release)
	finish := func() { cancel(); stop(); release() }

	r := req.Clone(actx)
	if n > 0 && req.GetBody != nil && req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			finish()
			c.settle(probe, outcomeNeutral)
			return nil, nil, fmt.Errorf("replaying the request body: %w", err)
		}
		r.Body = body
	}
	start := c.o.now()
	*sends++
	cost.From(ctx).Request(c.o.Call)
	resp, err := c.hc.Do(r)
	secs := c.o.now().Sub(start).Seconds()
	if err != nil {
		finish()
		c.o.Observer.ModelRequest(c.o.Backend, c.o.Capability, "error", secs)
		if ctx.Err() != nil {
			c.settle(probe, outcomeNeutral)
			c.o.Observer.ModelError(c.o.Backend, c.o.Capability, "canceled")
			return nil, nil, ctx.Err()
		}
		f := &failure{kind: "connection", retryable: true, breaker: true, retryAfter: -1, sentinel: remoteerr.ErrUnavailable,
			reason: "connection: " + shortNetErr(err)}
		var ne net.Error
		if errors.Is(actx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			f.kind, f.reason = "timeout", fmt.Sprintf("timeout after %s", c.o.Timeout)
		}
		c.o.Observer.ModelError(c.o.Backend, c.o.Capability, f.kind)
		c.settle(probe, outcomeFailure)
		return nil, f, nil
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		c.o.Observer.ModelRequest(c.o.Backend, c.o.Capability, "ok", secs)
		c.settle(probe, outcomeSuccess)
		resp.Body = &releasingBody{ReadCloser: resp.Body, done: finish}
		return resp, nil, nil
	}
	f := classify(resp)
	finish()
	c.o.Observer.ModelRequest(c.o.Backend, c.o.Capability, "error", secs)
	c.o.Observer.ModelError(c.o.Backend, c.o.Capability, f.kind)
	if f.breaker {
		c.settle(probe, outcomeFailure)
	} else {
		c.settle(probe, outcomeSuccess)
	}
	return nil, f, nil
}

// classify reads (a bounded part of) a non-2xx answer, drains and closes its
// body and says what it means.
func classify(resp *http.Response) *failure {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 256<<10))
	_ = resp.Body.Close()
	code := resp.StatusCode
	f := &failure{status: code, reason: fmt.Sprintf("status %d", code), message: ErrorMessage(raw), retryAfter: -1}
	switch {
	case code == http.StatusTooManyRequests:
		f.kind, f.retryable, f.breaker, f.sentinel = "rate_limited", true, true, remoteerr.ErrUnavailable
	case code == http.StatusRequestTimeout:
		f.kind, f.retryable, f.breaker, f.sentinel = "timeout", true, true, remoteerr.ErrUnavailable
	case code == http.StatusFailedDependency, code == http.StatusInternalServerError, code == http.StatusBadGateway,
		code == http.StatusServiceUnavailable, code == http.StatusGatewayTimeout:
		f.kind, f.retryable, f.breaker, f.sentinel = "server_error", true, true, remoteerr.ErrUnavailable
	case code >= 400 && code < 500:
		f.kind, f.sentinel = "rejected", remoteerr.ErrRejected
	case code >= 500:
		f.kind, f.breaker, f.sentinel = "server_error", true, remoteerr.ErrUnavailable
	default: // 1xx, or a 3xx the client did not follow
		f.kind, f.sentinel = "bad_response", remoteerr.ErrBadResponse
		f.reason = fmt.Sprintf("unexpected status %d", code)
	}
	if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
		if d, ok := remoteerr.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			f.retryAfter = d
		}
	}
	return f
}

// ErrorMessage extracts a backend's error message from an error body: TEI's
// {"error": "...", "error_type": "..."}, OpenAI's {"error": {"message": ...}},
// vLLM's {"message": ...} and FastAPI's {"detail": ...}; any other body is
// returned as text. The result is at most 200 bytes of valid UTF-8.
func ErrorMessage(body []byte) string {
	var v struct {
		Error     json.RawMessage `json:"error"`
		ErrorType string          `json:"error_type"`
		Message   string          `json:"message"`
		Detail    json.RawMessage `json:"detail"`
	}
	msg := ""
	if json.Unmarshal(body, &v) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		switch {
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
			if v.ErrorType != "" {
				msg += " (" + v.ErrorType + ")"
			}
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
			if obj.Type != "" {
				msg += " (" + obj.Type + ")"
			}
		case v.Message != "":
			msg = v.Message
		case len(v.Detail) > 0 && json.Unmarshal(v.Detail, &s) == nil && s != "":
			msg = s
		case len(v.Detail) > 0:
			msg = string(v.Detail)
		}
	}
	if msg == "" {
		msg = string(bytes.TrimSpace(body))
	}
	return Snippet(msg, snippetBytes)
}

// Snippet cuts s to at most n bytes without splitting a UTF-8 sequence,
// marking a cut with "…" (counted in n), and replaces invalid UTF-8.
func Snippet(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	const ell = "…"
	cut := n - len(ell)
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ell
}

// shortNetErr names a transport error without the full URL (the path is in
// the Error already).
func shortNetErr(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			err = inner
		}
	}
	return Snippet(err.Error(), snippetBytes)
}

// backoff returns the full-jitter wait before retry n (0-based).
func (c *Client) backoff(n int) time.Duration {
	d := c.o.MaxBackoff
	if n < 62 {
		if b := c.o.BaseBackoff << n; b > 0 && b < d {
			d = b
		}
	}
	return time.Duration(c.o.rand() * float64(d))
}

// releasingBody ends the attempt (cancels its context, frees the concurrency
// slot) when the caller closes the body.
type releasingBody struct {
	io.ReadCloser
	done func()
}

// Close closes the body and ends the attempt.
func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.done()
	return err
}

type outcome int

const (
	outcomeNeutral outcome = iota
	outcomeSuccess
	outcomeFailure
)

// cooldownLeft is how long the open breaker still fails fast (at least 1 ms
// when open, 0 otherwise).
func (c *Client) cooldownLeft() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != Open {
		return 0
	}
	return max(c.openedAt.Add(c.o.BreakerCooldown).Sub(c.o.now()), time.Millisecond)
}

// admit asks the breaker for permission to make an attempt; probe reports
// that the attempt is the half-open probe.
func (c *Client) admit() (probe, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.state {
	case Closed:
		return false, true
	case Open:
		if c.o.now().Before(c.openedAt.Add(c.o.BreakerCooldown)) {
			return false, false
		}
		c.state = HalfOpen
		c.probing = false
	}
	if c.probing {
		return false, false
	}
	c.probing = true
	return true, true
}

// settle records an attempt's outcome in the breaker.
func (c *Client) settle(probe bool, out outcome) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if probe {
		c.probing = false
	}
	switch out {
	case outcomeSuccess:
		c.failures = 0
		if probe || c.state == HalfOpen {
			c.state = Closed
		}
	case outcomeFailure:
		c.failures++
		if probe || (c.state == Closed && c.failures >= c.o.BreakerFailures) {
			c.state = Open
			c.openedAt = c.o.now()
		}
	}
}

// BaseURL validates a backend base URL (http or https, with a host, no query
// or fragment) and returns it without trailing slashes.
func BaseURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("base URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("base URL %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return "", fmt.Errorf("base URL %q: no host", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("base URL %q: must not have a query or fragment", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// Bearer returns a header with "Authorization: Bearer key", or nil for an
// empty key.
func Bearer(key string) http.Header {
	if key == "" {
		return nil
	}
	return http.Header{"Authorization": {"Bearer " + key}}
}

// safeRedirectHeaders are the request headers a redirect to another host
// keeps; every other one (an API key in X-Api-Key, Authorization, cookies)
// stays with the host it was meant for. Go drops Authorization and cookies
// itself, but not a custom key header.
var safeRedirectHeaders = []string{"Accept", "Accept-Encoding", "Accept-Language", "Content-Type", "User-Agent"}

// keepCredentialsOnHost follows at most 10 redirects, stripping the request's
// credentials when one leaves the original scheme and host.
func keepCredentialsOnHost(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	first := via[0].URL
	if req.URL.Scheme == first.Scheme && strings.EqualFold(req.URL.Host, first.Host) {
		return nil
	}
	kept := make(http.Header, len(safeRedirectHeaders))
	for _, k := range safeRedirectHeaders {
		if v := req.Header.Values(k); len(v) > 0 {
			kept[k] = v
		}
	}
	req.Header = kept
	return nil
}
