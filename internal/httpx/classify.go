package httpx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/remoteerr"
)

// failure is the outcome of one failed attempt: the error an attempt returns
// to the retry policy, which retries it when retryable and giveUp is empty.
type failure struct {
	kind       string // metric kind
	status     int
	reason     string
	message    string
	retryable  bool
	breaker    bool          // counts as a breaker failure
	retryAfter time.Duration // honoured Retry-After; -1 when absent or invalid
	sentinel   error

	// Set by plan for a retryable failure.
	wait    time.Duration // before the next attempt
	giveUp  string        // why there is no next attempt although one is allowed
	retryIn time.Duration // the Error's RetryIn when giving up
}

// Error returns the failure's reason.
func (f *failure) Error() string { return f.reason }

// asFailure returns the *failure err is, or nil.
func asFailure(err error) *failure {
	var f *failure
	if errors.As(err, &f) {
		return f
	}
	return nil
}

// errCircuitOpen reports an attempt the breaker refused.
var errCircuitOpen = errors.New("circuit open")

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

// plan sets when the retryable failure f of attempt n (0-based) is retried:
// after its Retry-After, else after a full-jitter backoff; or why it is not,
// when the Retry-After is over MaxRetryAfter or the wait ends past ctx's
// deadline.
func (c *Client) plan(ctx context.Context, f *failure, n int) {
	if !f.retryable {
		return
	}
	f.wait = c.backoff(n)
	if f.retryAfter >= 0 {
		if f.retryAfter > c.o.MaxRetryAfter {
			f.giveUp = fmt.Sprintf("%s, Retry-After %s exceeds the %s cap", f.reason, f.retryAfter, c.o.MaxRetryAfter)
			f.retryIn = f.retryAfter
			return
		}
		f.wait = f.retryAfter
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < f.wait {
		f.giveUp = fmt.Sprintf("%s, next retry in %s is past the context deadline", f.reason, f.wait.Round(time.Millisecond))
		f.retryIn = f.wait
	}
}

// backoff returns the full-jitter wait before retry n+1: uniformly random in
// [0, min(MaxBackoff, BaseBackoff·2ⁿ)). failsafe-go's backoff jitters
// around the delay instead, which keeps synchronised clients closer.
func (c *Client) backoff(n int) time.Duration {
	d := c.o.MaxBackoff
	if n < 62 {
		if b := c.o.BaseBackoff << n; b > 0 && b < d {
			d = b
		}
	}
	return time.Duration(c.o.rand() * float64(d))
}
