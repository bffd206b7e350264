// Package remoteerr is the error vocabulary of the clients of remote
// services: the model backends (models/openai, models/tei, models/jina on
// internal/httpx) and the scholarly-metadata APIs (internal/academic). Their
// failures wrap one of the kinds below, which callers test with errors.Is,
// and may carry a hint of when asking again can succeed (RetryAfterer,
// read by RetryAfter; ParseRetryAfter is the fleet's one Retry-After
// parser). ErrUnavailable names its row of the error table
// (errs.ModelUnavailable); it imports internal/errs and the standard
// library only.
package remoteerr

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/errs"
)

// Kinds of failure. Wrap them with %w; test them with errors.Is.
var (
	// ErrUnavailable marks a service that could not answer: connection
	// refused, timeout, 429/5xx after retries, or its circuit breaker open.
	// Jobs that meet it wait and retry later; it is never a permanent
	// failure.
	ErrUnavailable = errs.Sentinel("model backend unavailable", errs.ModelUnavailable)

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

// RetryAfter returns the first positive hint of a RetryAfterer in err's
// tree (depth first, as errors.As walks it), and whether there was one.
func RetryAfter(err error) (time.Duration, bool) {
	for err != nil {
		if h, ok := err.(RetryAfterer); ok {
			if d := h.RetryAfter(); d > 0 {
				return d, true
			}
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if d, ok := RetryAfter(e); ok {
					return d, true
				}
			}
			return 0, false
		default:
			return 0, false
		}
	}
	return 0, false
}

// MaxRetryAfter bounds a parsed Retry-After, so that a hostile or broken
// server cannot park a job for years.
const MaxRetryAfter = 24 * time.Hour

// ParseRetryAfter reads a Retry-After header value (RFC 9110 §10.2.3):
// delta-seconds or an HTTP-date, relative to now. A date in the past gives
// 0; a value past MaxRetryAfter gives MaxRetryAfter. ok is false for an
// empty, negative or unparsable value.
func ParseRetryAfter(header string, now time.Time) (d time.Duration, ok bool) {
	v := strings.TrimSpace(header)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if err != nil || secs > uint64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter, true
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return min(max(t.Sub(now), 0), MaxRetryAfter), true
}
