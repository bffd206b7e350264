// Package remoteerr is the error vocabulary of the clients of remote
// services: the model backends (models/openai, models/tei, models/jina on
// internal/httpx) and the scholarly-metadata APIs (internal/academic). Their
// failures wrap one of the kinds below, which callers test with errors.Is,
// and may carry a hint of when asking again can succeed (RetryAfterer). It
// imports the standard library only.
package remoteerr

import (
	"errors"
	"time"
)

// Kinds of failure. Wrap them with %w; test them with errors.Is.
var (
	// ErrUnavailable marks a service that could not answer: connection
	// refused, timeout, 429/5xx after retries, or its circuit breaker open.
	// Jobs that meet it wait and retry later; it is never a permanent
	// failure.
	ErrUnavailable = errors.New("model backend unavailable")

	// ErrBadResponse marks an answer that does not have the documented
	// shape: non-JSON, wrong fields, wrong number of results, NaN scores, a
	// vector of the wrong dimension. The error text names what was wrong.
	ErrBadResponse = errors.New("model backend answered garbage")

	// ErrRejected marks a request the service refused as invalid (4xx other
	// than 408/429): retrying the same request cannot succeed.
	ErrRejected = errors.New("model backend rejected the request")

	// ErrNotFound marks a 404 answer of a service that looks things up by
	// identifier: the academic APIs do not know the paper. It is not
	// retried.
	ErrNotFound = errors.New("not found")
)

// RetryAfterer is implemented by errors that know when asking again may
// succeed: the remaining cooldown of an open circuit breaker, or a
// Retry-After longer than the client waits by itself (httpx.Error). A
// duration of zero or less means no hint.
type RetryAfterer interface {
	RetryAfter() time.Duration
}

// RetryAfter returns the hint of the first error in err's tree that is a
// RetryAfterer, and whether that hint is positive.
func RetryAfter(err error) (time.Duration, bool) {
	var hint RetryAfterer
	if errors.As(err, &hint) {
		if d := hint.RetryAfter(); d > 0 {
			return d, true
		}
	}
	return 0, false
}
