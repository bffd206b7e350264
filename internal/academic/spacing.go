package academic

import (
	"context"
	"net/http"
	"time"

	"golang.org/x/time/rate"
)

// newLimiter returns the limiter that spaces a Client's requests: one
// request per interval with a burst of one, so that after an idle spell one
// request starts at once and the next waits a full interval. It returns nil
// (no spacing) for interval ≤ 0.
func newLimiter(interval time.Duration) *rate.Limiter {
	if interval <= 0 {
		return nil
	}
	return rate.NewLimiter(rate.Every(interval), 1)
}

// waitTurn blocks until lim lets a request start, or ctx ends (then it
// returns ctx's error; a nil lim never waits). rate.Limiter.Wait refuses at
// once, with an error of its own, a wait that would outlast ctx's deadline;
// waitTurn then waits for the deadline, so the caller sees the context's
// error like any request that outlives its context (httpx tells an attempt
// whose context ended from a connection failure by that error).
func waitTurn(ctx context.Context, lim *rate.Limiter) error {
	if lim == nil {
		return ctx.Err()
	}
	err := lim.Wait(ctx)
	if err == nil || ctx.Err() != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		return err // not a deadline refusal (a burst of one never fails otherwise)
	}
	<-ctx.Done()
	return ctx.Err()
}

// spacedTransport makes every request handed to the network, retries
// included, wait for its turn at lim.
type spacedTransport struct {
	next http.RoundTripper
	lim  *rate.Limiter
}

// RoundTrip waits for a turn, then sends req.
func (t *spacedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := waitTurn(req.Context(), t.lim); err != nil {
		if req.Body != nil {
			_ = req.Body.Close() // RoundTrip must close the body, even on errors
		}
		return nil, err
	}
	return t.next.RoundTrip(req)
}

// spaced wraps next so that every request it sends waits for lim; with a nil
// lim it returns next as is.
func spaced(next http.RoundTripper, lim *rate.Limiter) http.RoundTripper {
	if lim == nil {
		return next
	}
	return &spacedTransport{next: next, lim: lim}
}
